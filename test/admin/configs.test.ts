import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { leakWatch } from '../helpers/leak-watch.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { CONFIG_SCOPES, rawTable, workspaceWithKey } from './admin-fixtures.js';

const TARGET_KEY = 'sk-config-target-secret-01234567';

const fallback = (apiKey = TARGET_KEY) => ({
  strategy: { mode: 'fallback', on_status_codes: [429, 503] },
  retry: { attempts: 2, use_retry_after_header: true },
  request_timeout: 30000,
  cache: { mode: 'simple', max_age: 60 },
  targets: [
    { provider: '@primary', override_params: { model: 'gpt-4o' } },
    { provider: 'openai', api_key: apiKey, weight: 1, forward_headers: ['x-team'] },
  ],
});

for (const engine of fullEngines()) {
  describe(`configs (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const watch = leakWatch(() => app);
    const call = watch.call;

    before(async () => {
      app = await startTestApp({ engine });
    });
    after(async () => {
      watch.assertNothingLeaked([TARGET_KEY]);
      await app.close();
    });

    test('create, get, update (a new version each time), versions, v2 list, delete', async () => {
      const created = await call('post', '/v1/configs', admin(), { name: 'Prod routing', config: fallback() });
      assert.equal(created.status, 201);
      assert.equal(created.body.slug, 'prod-routing');
      assert.equal(created.body.version, 1);
      assert.equal(created.body.config.targets[1].api_key, 'sk-c********4567');
      assert.equal(created.body.config.strategy.mode, 'fallback');

      const bySlug = await call('get', '/v1/configs/prod-routing', admin());
      assert.equal(bySlug.status, 200);
      assert.equal(bySlug.body.id, created.body.id);

      const changed = fallback();
      changed.retry.attempts = 4;
      const updated = await call('put', `/v1/configs/${created.body.id}`, admin(), { config: changed });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.version, 2);
      assert.equal(updated.body.config.retry.attempts, 4);
      const renamed = await call('put', `/v1/configs/${created.body.id}`, admin(), { name: 'Prod routing v3' });
      assert.equal(renamed.body.version, 3);
      assert.equal(renamed.body.name, 'Prod routing v3');

      const versions = await call('get', `/v1/configs/${created.body.id}/versions?limit=2`, admin());
      assert.equal(versions.status, 200);
      assert.deepEqual(versions.body.data.map((v: { version: number }) => v.version), [3, 2]);
      assert.equal(versions.body.has_more, true);
      const older = await call('get', `/v1/configs/${created.body.id}/versions?limit=2&cursor=${versions.body.next_cursor}`, admin());
      assert.deepEqual(older.body.data.map((v: { version: number }) => v.version), [1]);
      assert.equal(older.body.data[0].config.retry.attempts, 2);

      for (const path of ['/v1/configs', '/v2/configs']) {
        const list = await call('get', path, admin());
        assert.equal(list.status, 200);
        const item = list.body.data.find((c: { id: string }) => c.id === created.body.id);
        assert.equal(item.version, 3);
      }

      const deleted = await call('delete', `/v1/configs/${created.body.id}`, admin());
      assert.equal(deleted.status, 200);
      assert.equal((await call('get', `/v1/configs/${created.body.id}`, admin())).status, 404);
      assert.equal(await app.services.db('config_versions').where({ config_id: created.body.id }).first(), undefined);
    });

    test('target secrets are encrypted at rest; a masked key sent back keeps the secret; the gateway gets it in clear', async () => {
      const created = await call('post', '/v1/configs', admin(), { name: 'secretive', config: fallback() });
      assert.ok(!(await rawTable(app, 'config_versions')).includes(TARGET_KEY));
      const echoed = await call('put', `/v1/configs/${created.body.id}`, admin(), { config: created.body.config });
      assert.equal(echoed.status, 200);
      const saved = await app.services.savedResources.config(app.boot.organisationId, app.boot.workspaceId, 'secretive');
      const targets = saved?.config.targets as Array<{ api_key?: string }>;
      assert.equal(targets[1]!.api_key, TARGET_KEY);
      assert.equal(saved?.version, 2);
    });

    test('the config document is validated against the spec schema, naming the bad key', async () => {
      const cases: Array<[unknown, string]> = [
        [{ strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', weight: 1 }, { provider: 'openai', weight: -2 }] }, 'config.targets[1].weight'],
        [{ strategy: { mode: 'roundrobin' }, targets: [{ provider: 'openai' }] }, 'config.strategy.mode'],
        [{ retry: { attempts: 6 } }, 'config.retry.attempts'],
        [{ cache: { mode: 'fuzzy' } }, 'config.cache.mode'],
        [{ strategy: { mode: 'conditional' }, targets: [{ name: 'a', provider: 'openai' }] }, 'config.strategy.conditions'],
        [{ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', colour: 'red' }] }, 'config.targets[0].colour'],
        [{ strategy: { mode: 'fallback' }, targets: [{ strategy: { mode: 'single' }, targets: [{ provider: 'openai', request_timeout: 0 }] }] }, 'config.targets[0].targets[0].request_timeout'],
        [{ provider: 'openai', custom_host: 'not-a-url' }, 'config.custom_host'],
      ];
      for (const [config, param] of cases) {
        const response = await call('post', '/v1/configs', admin(), { name: 'bad', config });
        assert.equal(response.status, 400, `${param}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param);
      }
      const conditional = await call('post', '/v1/configs', admin(), {
        name: 'conditional',
        config: {
          strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'big' }], default: 'small' },
          targets: [
            { name: 'big', provider: 'openai', api_key: TARGET_KEY, override_params: { model: 'gpt-4o' } },
            { name: 'small', provider: '@cheap', resource_name: 'r', deployment_id: 'd', api_version: '2024-10-21', strict_openai_compliance: false },
          ],
        },
      });
      assert.equal(conditional.status, 201, JSON.stringify(conditional.body));
      const long = await call('post', '/v1/configs', admin(), { name: 'n'.repeat(256), config: {} });
      assert.equal(long.status, 400);
      const taken = await call('post', '/v1/configs', admin(), { name: 'again', slug: 'conditional', config: {} });
      assert.equal(taken.status, 409);
    });

    test('a config naming a guardrail that does not exist is rejected at save; an existing one is accepted', async () => {
      const unknown = await call('post', '/v1/configs', admin(), { name: 'guarded', config: { input_guardrails: ['no-such-guardrail'], provider: 'openai', api_key: TARGET_KEY } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'unknown_guardrail');
      assert.match(unknown.body.error.message, /no-such-guardrail/);
      const nested = await call('post', '/v1/configs', admin(), {
        name: 'guarded',
        config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', output_guardrails: ['missing-out'] }] },
      });
      assert.equal(nested.status, 400);
      const inline = await call('post', '/v1/configs', admin(), {
        name: 'inline guard',
        config: { input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['secret'] } }], actions: { deny: true } }] },
      });
      assert.equal(inline.status, 201, 'inline guardrail objects are not references');

      const guardrail = await call('post', '/v1/guardrails', admin(), { name: 'PII check', slug: 'pii-check', checks: [{ id: 'default.pii' }] });
      assert.equal(guardrail.status, 201, JSON.stringify(guardrail.body));
      const known = await call('post', '/v1/configs', admin(), { name: 'guarded ok', config: { input_guardrails: ['pii-check'], output_guardrails: ['pii-check'] } });
      assert.equal(known.status, 201, JSON.stringify(known.body));
      const otherUnknown = await call('put', `/v1/configs/${known.body.id}`, admin(), { config: { input_guardrails: ['pii-check', 'ghost'] } });
      assert.equal(otherUnknown.status, 400);
      assert.match(otherUnknown.body.error.message, /ghost/);
      assert.doesNotMatch(otherUnknown.body.error.message, /pii-check/);
    });

    test("deleting a workspace's user_api_key_config default is blocked until the default is cleared", async () => {
      for (const by of ['slug', 'id'] as const) {
        const created = await call('post', '/v1/configs', admin(), { name: `default by ${by}`, config: fallback() });
        const ref = by === 'slug' ? created.body.slug : created.body.id;
        await app.services.db('workspaces').where({ id: app.boot.workspaceId }).update({ defaults: JSON.stringify({ user_api_key_config: ref }) });
        const blocked = await call('delete', `/v1/configs/${created.body.id}`, admin());
        assert.equal(blocked.status, 409);
        assert.equal(blocked.body.error.code, 'config_in_use');
        await app.services.db('workspaces').where({ id: app.boot.workspaceId }).update({ defaults: JSON.stringify({}) });
        const deleted = await call('delete', `/v1/configs/${created.body.id}`, admin());
        assert.equal(deleted.status, 200);
      }
    });

    test('a workspace key sees and changes only its own workspace configs', async () => {
      const team = await workspaceWithKey(app, 'team-c', CONFIG_SCOPES);
      const other = await workspaceWithKey(app, 'other-c', CONFIG_SCOPES);
      const mine = await call('post', '/v1/configs', { 'x-gw-api-key': team.key }, { name: 'team config', config: fallback() });
      assert.equal(mine.status, 201);
      assert.equal(mine.body.workspace_id, team.workspaceId);
      const elsewhere = await call('post', '/v1/configs', { 'x-gw-api-key': team.key }, { name: 'x', workspace_id: 'other-c', config: {} });
      assert.equal(elsewhere.status, 403);

      for (const path of [`/v1/configs/${mine.body.id}`, '/v1/configs/team-config', `/v1/configs/${mine.body.id}/versions`]) {
        assert.equal((await call('get', path, { 'x-gw-api-key': other.key })).status, 404, path);
      }
      assert.equal((await call('put', `/v1/configs/${mine.body.id}`, { 'x-gw-api-key': other.key }, { name: 'x' })).status, 404);
      assert.equal((await call('delete', `/v1/configs/${mine.body.id}`, { 'x-gw-api-key': other.key })).status, 404);
      const otherList = await call('get', '/v2/configs', { 'x-gw-api-key': other.key });
      assert.deepEqual(otherList.body.data, []);
      const teamList = await call('get', '/v1/configs', { 'x-gw-api-key': team.key });
      assert.deepEqual(teamList.body.data.map((c: { id: string }) => c.id), [mine.body.id]);
      assert.equal((await app.services.savedResources.config(app.boot.organisationId, other.workspaceId, 'team-config')), undefined);

      const readOnly = await workspaceWithKey(app, 'read-c', ['configs.read', 'configs.list']);
      assert.equal((await call('post', '/v1/configs', { 'x-gw-api-key': readOnly.key }, { name: 'x', config: {} })).status, 403);
    });
  });
}
