import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PUBLIC_TEST_ADDRESS, stubResolver } from '../helpers/stub-resolver.js';

const resolveHost = stubResolver({ 'hooks.example.test': [PUBLIC_TEST_ADDRESS], 'hooks.internal.example': ['10.0.0.9'] });
import { workspaceWithKey } from '../admin/admin-fixtures.js';

const GUARDRAIL_SCOPES = ['guardrails.create', 'guardrails.read', 'guardrails.list', 'guardrails.update', 'guardrails.delete'];

const piiGuardrail = (extra: Record<string, unknown> = {}) => ({
  name: 'No PII',
  checks: [{ id: 'default.pii', parameters: { categories: ['email'] } }],
  actions: { deny: true },
  ...extra,
});

for (const engine of fullEngines()) {
  describe(`guardrail resource, defaults and exclusions (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const call = async (method: 'get' | 'post' | 'put' | 'delete', path: string, headers: Record<string, string>, body?: unknown) => {
      const request = app.http[method](path).set(headers);
      return body === undefined ? request : request.send(body as object);
    };

    before(async () => {
      app = await startTestApp({ engine, resolveHost });
    });
    after(async () => {
      await app.close();
    });

    test('create, get by id and slug, list, update, delete; created_at and created_by in responses', async () => {
      const created = await call('post', '/v1/guardrails', admin(), piiGuardrail({ failOnError: true, timeout_ms: 5000 }));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.object, 'guardrail');
      assert.equal(created.body.slug, 'no-pii');
      assert.equal(created.body.workspace_id, null, "an admin key's guardrail belongs to the whole organisation");
      assert.equal(created.body.failOnError, true);
      assert.equal(created.body.timeout_ms, 5000);
      assert.deepEqual(created.body.actions, { deny: true });
      const owner = await app.services.db('users').where({ organisation_id: app.boot.organisationId, role: 'owner' }).first('id');
      assert.equal(created.body.created_by, owner.id, 'the admin key acts for the owner user');
      assert.ok(!Number.isNaN(Date.parse(created.body.created_at)));

      const bySlug = await call('get', '/v1/guardrails/no-pii', admin());
      assert.equal(bySlug.status, 200);
      assert.equal(bySlug.body.id, created.body.id);
      const list = await call('get', '/v1/guardrails', admin());
      assert.ok(list.body.data.some((item: { id: string }) => item.id === created.body.id));

      const updated = await call('put', `/v1/guardrails/${created.body.id}`, admin(), {
        checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }],
        actions: { deny: false },
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.checks[0].id, 'default.contains');
      assert.equal(updated.body.actions.deny, false);
      assert.equal(updated.body.name, 'No PII');
      const gateway = await app.services.guardrails.guardrail(app.boot.organisationId, app.boot.workspaceId, 'no-pii');
      assert.equal(gateway?.checks[0]?.id, 'default.contains', 'the gateway reads the change at once');

      const deleted = await call('delete', `/v1/guardrails/${created.body.id}`, admin());
      assert.deepEqual(deleted.body, { id: created.body.id, object: 'guardrail', deleted: true });
      assert.equal((await call('get', `/v1/guardrails/${created.body.id}`, admin())).status, 404);
      assert.equal(await app.services.guardrails.guardrail(app.boot.organisationId, app.boot.workspaceId, 'no-pii'), undefined);
    });

    test('each check is validated: unknown id, parameters off its schema, its own rules', async () => {
      const cases: Array<[unknown, string, string]> = [
        [[{ id: 'default.nope' }], 'checks[0].id', 'unknown_guardrail_check'],
        [[{ id: 'default.contains', parameters: {} }], 'checks[0].parameters.words', 'invalid_request'],
        [[{ id: 'default.pii' }, { id: 'default.wordCount', parameters: { min: 'three' } }], 'checks[1].parameters.min', 'invalid_request'],
        [[{ id: 'default.regexMatch', parameters: { rule: '([' } }], 'checks[0].parameters.rule', 'invalid_request'],
        [[], 'checks', 'invalid_request'],
      ];
      for (const [checks, param, code] of cases) {
        const response = await call('post', '/v1/guardrails', admin(), { name: 'bad', checks });
        assert.equal(response.status, 400, `${param}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param);
        assert.equal(response.body.error.code, code);
        assert.equal(response.body.error.type, 'invalid_request_error');
      }
      const created = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'to update' }));
      const badUpdate = await call('put', `/v1/guardrails/${created.body.id}`, admin(), { checks: [{ id: 'default.contains', parameters: { words: [] } }] });
      assert.equal(badUpdate.status, 400);
      assert.equal(badUpdate.body.error.param, 'checks[0].parameters.words');
      const unknownField = await call('post', '/v1/guardrails', admin(), { ...piiGuardrail(), colour: 'red' });
      assert.equal(unknownField.status, 400);
      assert.equal(unknownField.body.error.param, 'colour');
      const taken = await call('post', '/v1/guardrails', admin(), piiGuardrail({ slug: created.body.slug }));
      assert.equal(taken.status, 409);
    });

    test('forwardHeaders naming a restricted header or an invalid name is rejected at create and update', async () => {
      const webhook = (forwardHeaders: string[]) => ({
        name: 'hook',
        checks: [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.test/check', forwardHeaders } }],
      });
      for (const [names, param, code] of [
        [['x-team', 'Authorization'], 'checks[0].parameters.forwardHeaders[1]', 'restricted_forward_header'],
        [['metadata-flavor'], 'checks[0].parameters.forwardHeaders[0]', 'restricted_forward_header'],
        [['x-gw-config'], 'checks[0].parameters.forwardHeaders[0]', 'restricted_forward_header'],
        [['transfer-encoding'], 'checks[0].parameters.forwardHeaders[0]', 'restricted_forward_header'],
        [['bad header'], 'checks[0].parameters.forwardHeaders[0]', 'invalid_forward_headers'],
      ] as const) {
        const response = await call('post', '/v1/guardrails', admin(), webhook([...names]));
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.equal(response.body.error.param, param);
        assert.equal(response.body.error.code, code);
      }
      const ok = await call('post', '/v1/guardrails', admin(), webhook(['X-Team', 'x-request-id']));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.checks[0].parameters.forwardHeaders, ['x-team', 'x-request-id']);
      const update = await call('put', `/v1/guardrails/${ok.body.id}`, admin(), { checks: webhook(['cookie']).checks });
      assert.equal(update.status, 400);
      assert.equal(update.body.error.code, 'restricted_forward_header');
    });

    test('URLs in check parameters are vetted at save: private, loopback and metadata addresses are refused', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ id: 'default.webhook', parameters: { webhookURL: 'http://169.254.169.254/latest/meta-data' } }, 'webhookURL'],
        [{ id: 'default.webhook', parameters: { webhookURL: 'http://0x7f000002:8080/hook' } }, 'webhookURL'],
        [{ id: 'default.log', parameters: { logURL: 'http://[::1]/collect' } }, 'logURL'],
        [{ id: 'default.jwt', parameters: { jwksUri: 'http://localhost/jwks.json' } }, 'jwksUri'],
        [{ id: 'default.webhook', parameters: { webhookURL: 'file:///etc/passwd' } }, 'webhookURL'],
      ];
      for (const [check, name] of cases) {
        const response = await call('post', '/v1/guardrails', admin(), { name: 'private', checks: [{ id: 'default.pii' }, check] });
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.equal(response.body.error.param, `checks[1].parameters.${name}`);
        assert.equal(response.body.error.code, 'guardrail_url_refused');
      }
      const inline = await call('post', '/v1/configs', admin(), {
        name: 'private hook',
        config: { provider: 'openai', input_guardrails: [{ checks: [{ id: 'default.webhook', parameters: { webhookURL: 'http://10.0.0.8/hook' } }] }] },
      });
      assert.equal(inline.status, 400);
      assert.equal(inline.body.error.param, 'config.input_guardrails[0].checks[0].parameters.webhookURL');
      const publicName = await call('post', '/v1/guardrails', admin(), { name: 'public hook', checks: [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.test/check' } }] });
      assert.equal(publicName.status, 201, JSON.stringify(publicName.body));
      // A name is resolved at save as at every call: one that resolves to a private address is refused now.
      const privateName = await call('post', '/v1/guardrails', admin(), { name: 'private name', checks: [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.internal.example/check' } }] });
      assert.deepEqual([privateName.status, privateName.body.error.code], [400, 'guardrail_url_refused']);
      assert.match(privateName.body.error.message, /hooks\.internal\.example, which resolves to the non-public address 10\.0\.0\.9/);
    });

    test("a check's endpoint headers are sealed at rest and masked in responses; a mask sent back keeps the secret", async () => {
      const SECRET = 'Bearer hook-secret-0123456789abcdef';
      const checks = [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.test/check', headers: { Authorization: SECRET, 'x-team': 'blue', 'x-hook-auth': 'hook-secret-2' } } }];
      const created = await call('post', '/v1/guardrails', admin(), { name: 'secret hook', checks });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const shown = created.body.checks[0].parameters.headers;
      assert.equal(shown.Authorization, 'Bear********cdef');
      assert.equal(shown['x-team'], '****', 'every endpoint header value is treated as a secret');
      assert.ok(!JSON.stringify(created.body).includes('hook-secret'), 'the secret is not answered');
      assert.ok(!JSON.stringify(await app.services.db('guardrails').select()).includes('hook-secret'), 'the secret is not stored in clear');
      assert.ok(!JSON.stringify(await app.services.db('audit_logs').select()).includes('hook-secret'), 'nor in the audit log of the call');
      const echoed = await call('put', `/v1/guardrails/${created.body.id}`, admin(), { checks: created.body.checks });
      assert.equal(echoed.status, 200);
      const definition = await app.services.guardrails.guardrail(app.boot.organisationId, app.boot.workspaceId, created.body.slug);
      assert.equal((definition!.checks[0]!.parameters!.headers as Record<string, string>).Authorization, SECRET, 'the gateway gets it in clear');
    });

    test("inline guardrails' endpoint headers in a saved config are sealed and masked like provider keys", async () => {
      const hook = { checks: [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.test/check', headers: { 'x-hook-auth': 'inline-hook-secret-42' } } }] };
      const saved = await call('post', '/v1/configs', admin(), {
        name: 'inline secret',
        config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai', output_guardrails: [hook] }] },
      });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      assert.ok(!JSON.stringify(saved.body).includes('inline-hook-secret'));
      assert.ok(!JSON.stringify(await app.services.db('config_versions').select()).includes('inline-hook-secret'));
      const gateway = await app.services.savedResources.config(app.boot.organisationId, app.boot.workspaceId, saved.body.slug);
      const targets = gateway!.config.targets as Array<{ output_guardrails: Array<typeof hook> }>;
      assert.equal(targets[0]!.output_guardrails[0]!.checks[0]!.parameters.headers['x-hook-auth'], 'inline-hook-secret-42');
    });

    test('workspace keys: own workspace only, organisation guardrails read-only; a key without the scope is refused', async () => {
      const { key } = await workspaceWithKey(app, 'team-guard', GUARDRAIL_SCOPES);
      const ws = { 'x-gw-api-key': key };
      const orgWide = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'org wide' }));
      const own = await call('post', '/v1/guardrails', ws, piiGuardrail({ name: 'team own' }));
      assert.equal(own.status, 201);
      assert.notEqual(own.body.workspace_id, null);
      assert.equal((await call('get', `/v1/guardrails/${orgWide.body.id}`, ws)).status, 200);
      const changeOrgWide = await call('put', `/v1/guardrails/${orgWide.body.id}`, ws, { name: 'hijacked' });
      assert.equal(changeOrgWide.status, 403);
      assert.equal(changeOrgWide.body.error.type, 'permission_error');
      const otherWorkspace = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'default ws only', workspace_id: app.boot.workspaceId }));
      assert.equal((await call('get', `/v1/guardrails/${otherWorkspace.body.id}`, ws)).status, 404);

      const { key: readOnly } = await workspaceWithKey(app, 'team-readonly', ['guardrails.read']);
      const refused = await call('post', '/v1/guardrails', { 'x-gw-api-key': readOnly }, piiGuardrail({ name: 'nope' }));
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'missing_scope');
      const refusedDefaults = await call('put', '/v1/admin/organisation/defaults', ws, { input_guardrails: [] });
      assert.equal(refusedDefaults.status, 403);
    });

    test('organisation defaults: set by id or slug, GET answers id and slug, only organisation-wide guardrails, a default cannot be deleted', async () => {
      const input = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'default in', slug: 'default-in' }));
      const output = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'default out', slug: 'default-out' }));
      const empty = await call('get', '/v1/admin/organisation/defaults', admin());
      assert.deepEqual(empty.body, { object: 'organisation_guardrail_defaults', input_guardrails: [], output_guardrails: [] });
      const set = await call('put', '/v1/admin/organisation/defaults', admin(), { input_guardrails: ['default-in'], output_guardrails: [output.body.id] });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body.input_guardrails, [{ id: input.body.id, slug: 'default-in' }]);
      assert.deepEqual(set.body.output_guardrails, [{ id: output.body.id, slug: 'default-out' }]);
      const partial = await call('put', '/v1/admin/organisation/defaults', admin(), { output_guardrails: [] });
      assert.deepEqual(partial.body.input_guardrails, [{ id: input.body.id, slug: 'default-in' }], 'a phase left out keeps its list');
      assert.deepEqual(partial.body.output_guardrails, []);

      const unknown = await call('put', '/v1/admin/organisation/defaults', admin(), { input_guardrails: ['default-in', 'ghost'] });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'input_guardrails[1]');
      const scoped = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'scoped', workspace_id: app.boot.workspaceId }));
      const notOrgWide = await call('put', '/v1/admin/organisation/defaults', admin(), { input_guardrails: [scoped.body.slug] });
      assert.equal(notOrgWide.status, 400);
      assert.equal(notOrgWide.body.error.code, 'workspace_guardrail');

      const inUse = await call('delete', '/v1/guardrails/default-in', admin());
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.error.code, 'guardrail_in_use');
      const defaults = await app.services.guardrails.defaultsFor(app.boot.organisationId, app.boot.workspaceId, 'input');
      assert.deepEqual(defaults.map((guardrail) => guardrail.slug), ['default-in']);
      await call('put', '/v1/admin/organisation/defaults', admin(), { input_guardrails: [] });
    });

    test('workspace exclusions: merge by default, override_existing replaces, unknown workspace refused', async () => {
      const one = await app.services.store.workspaces.create({ organisation_id: app.boot.organisationId, name: 'ex one', slug: 'ex-one' }, new Date().toISOString());
      const two = await app.services.store.workspaces.create({ organisation_id: app.boot.organisationId, name: 'ex two', slug: 'ex-two' }, new Date().toISOString());
      const path = '/v1/workspace-exclusions/input-guardrails';
      assert.deepEqual((await call('get', path, admin())).body, { object: 'guardrail_workspace_exclusions', phase: 'input', workspaces: [] });
      const first = await call('put', path, admin(), { workspaces: ['ex-one'] });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const merged = await call('put', path, admin(), { workspaces: [two.id, 'ex-one'] });
      assert.deepEqual(merged.body.workspaces, [{ id: one.id, slug: 'ex-one' }, { id: two.id, slug: 'ex-two' }]);
      const replaced = await call('put', path, admin(), { workspaces: ['ex-two'], override_existing: true });
      assert.deepEqual(replaced.body.workspaces, [{ id: two.id, slug: 'ex-two' }]);
      assert.deepEqual((await call('get', '/v1/workspace-exclusions/output-guardrails', admin())).body.workspaces, [], 'phases are separate');
      const cleared = await call('put', path, admin(), { workspaces: [], override_existing: true });
      assert.deepEqual(cleared.body.workspaces, []);
      const unknown = await call('put', path, admin(), { workspaces: ['nowhere'] });
      assert.equal(unknown.status, 404);
    });

    test('configs: unknown guardrail slugs and invalid inline guardrails are rejected at save; a guardrail a config names cannot be deleted', async () => {
      const guardrail = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'used', slug: 'used-by-config' }));
      const unknown = await call('post', '/v1/configs', admin(), { name: 'c1', config: { provider: 'openai', output_guardrails: ['used-by-config', 'not-there'] } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'unknown_guardrail');
      assert.match(unknown.body.error.message, /not-there/);
      const badInline = await call('post', '/v1/configs', admin(), {
        name: 'c2',
        config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', input_guardrails: [{ checks: [{ id: 'default.regexMatch', parameters: {} }] }] }] },
      });
      assert.equal(badInline.status, 400);
      assert.equal(badInline.body.error.param, 'config.targets[0].input_guardrails[0].checks[0].parameters.rule');
      const shapeless = await call('post', '/v1/configs', admin(), { name: 'c3', config: { input_guardrails: [{ deny: true }] } });
      assert.equal(shapeless.status, 400);
      const ok = await call('post', '/v1/configs', admin(), { name: 'c4', config: { provider: 'openai', input_guardrails: [guardrail.body.id] } });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const blocked = await call('delete', '/v1/guardrails/used-by-config', admin());
      assert.equal(blocked.status, 409);
      assert.match(blocked.body.error.message, /c4/);
      const { key } = await workspaceWithKey(app, 'team-configs', ['configs.create']);
      const scoped = await call('post', '/v1/guardrails', admin(), piiGuardrail({ name: 'default ws guard', workspace_id: app.boot.workspaceId }));
      const foreign = await call('post', '/v1/configs', { 'x-gw-api-key': key }, { name: 'c5', config: { provider: 'openai', input_guardrails: [scoped.body.slug] } });
      assert.equal(foreign.status, 400, "another workspace's guardrail is unknown to this workspace's configs");
    });
  });
}
