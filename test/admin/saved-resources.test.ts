import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { privateDb } from '../helpers/test-db.js';

/** A database two instances can share: a Postgres schema, or an SQLite file (not :memory:, which is per connection). */
async function sharedDatabase(databaseUrl: string | undefined) {
  if (databaseUrl) return privateDb(databaseUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-shared-'));
  return { options: { sqliteFile: path.join(dir, 'gw.sqlite') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

for (const engine of fullEngines()) {
  describe(`gateway lookups of saved resources (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const org = () => app.boot.organisationId;
    const ws = () => app.boot.workspaceId;

    before(async () => {
      app = await startTestApp({ engine, resolveHost: stubResolver(EXAMPLE_NAMES) });
    });
    after(() => app.close());

    test('an edited provider is seen on the very next lookup; a deleted one is gone', async () => {
      assert.equal(await app.services.savedResources.provider(org(), ws(), '@edited'), undefined, 'a miss is cached too');
      const created = await app.http.post('/v1/providers').set(admin()).send({ name: 'edited', ai_provider_id: 'openai', key: 'sk-first-key-0000000' });
      assert.equal((await app.services.savedResources.provider(org(), ws(), '@edited'))?.target.apiKey, 'sk-first-key-0000000');
      await app.http.put(`/v1/providers/${created.body.id}`).set(admin()).send({ key: 'sk-second-key-000000', configurations: { custom_host: 'https://proxy.example.com/v1' } });
      const edited = await app.services.savedResources.provider(org(), ws(), '@edited');
      assert.equal(edited?.target.apiKey, 'sk-second-key-000000');
      assert.equal(edited?.target.customHost, 'https://proxy.example.com/v1');
      await app.http.delete(`/v1/providers/${created.body.id}`).set(admin());
      assert.equal(await app.services.savedResources.provider(org(), ws(), '@edited'), undefined);
    });

    test('an integration change reaches the providers built on it at once', async () => {
      const integration = await app.http
        .post('/v1/integrations')
        .set(admin())
        .send({ name: 'int', ai_provider_id: 'openai', key: 'sk-integration-a-000', workspace_access: { all_workspaces: true, workspace_ids: [] } });
      await app.http.post('/v1/providers').set(admin()).send({ name: 'on-int', integration_id: integration.body.id });
      assert.equal((await app.services.savedResources.provider(org(), ws(), 'on-int'))?.target.apiKey, 'sk-integration-a-000');
      await app.http.put(`/v1/integrations/${integration.body.id}`).set(admin()).send({ key: 'sk-integration-b-000', pricing_adjustments: { multiplier: 3 } });
      const after = await app.services.savedResources.provider(org(), ws(), 'on-int');
      assert.equal(after?.target.apiKey, 'sk-integration-b-000');
      assert.equal(after?.pricing_multiplier, 3);
      // Withdrawing the workspace's access stops the provider from serving it.
      await app.http.put(`/v1/integrations/${integration.body.id}/workspaces`).set(admin()).send({ all_workspaces: false, workspace_ids: [] });
      assert.equal(await app.services.savedResources.provider(org(), ws(), 'on-int'), undefined);
    });

    test('an edited config is seen on the very next lookup, by id and by slug', async () => {
      const created = await app.http.post('/v1/configs').set(admin()).send({ name: 'live', config: { retry: { attempts: 1 } } });
      assert.equal((await app.services.savedResources.config(org(), ws(), 'live'))?.version, 1);
      assert.equal((await app.services.savedResources.config(org(), ws(), created.body.id))?.version, 1);
      await app.http.put(`/v1/configs/${created.body.id}`).set(admin()).send({ config: { retry: { attempts: 3 } } });
      const bySlug = await app.services.savedResources.config(org(), ws(), 'live');
      assert.equal(bySlug?.version, 2);
      assert.deepEqual(bySlug?.config, { retry: { attempts: 3 } });
      assert.equal((await app.services.savedResources.config(org(), ws(), created.body.id))?.version, 2);
    });

    test('organisation settings are re-read after an organisation_settings invalidation', async () => {
      assert.notEqual((await app.services.savedResources.organisationSettings(org())).block_inline_config, true);
      const organisation = await app.services.store.organisations.get(org());
      await app.services.store.organisations.updateSettings(org(), { ...organisation!.settings, block_inline_config: true }, new Date().toISOString());
      await app.services.bus.publish('organisation_settings', org());
      assert.equal((await app.services.savedResources.organisationSettings(org())).block_inline_config, true);
    });
  });

  describe(`two instances sharing one database (${engine.name})`, () => {
    test(
      'an edit made through one instance is seen by the other on its next lookup',
      { skip: engine.redisUrl ? false : 'instances hear each other only through Redis pub/sub; set GW_TEST_REDIS_URL' },
      async () => {
        const db = await sharedDatabase(engine.databaseUrl);
        // One encryption key and one Redis prefix: the two instances are one deployment.
        const env = { GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'), GW_REDIS_PREFIX: `gwtest:${randomBytes(4).toString('hex')}:` };
        const first = await startTestApp({ engine, sharedDb: db, env, resolveHost: stubResolver(EXAMPLE_NAMES) });
        const second = await startTestApp({ engine, sharedDb: db, env, resolveHost: stubResolver(EXAMPLE_NAMES) });
        try {
          const admin = { 'x-gw-api-key': first.adminKey };
          const { organisationId, workspaceId } = first.boot;
          assert.equal(second.boot.organisationId, organisationId);
          const provider = await first.http.post('/v1/providers').set(admin).send({ name: 'shared', ai_provider_id: 'openai', key: 'sk-shared-one-000000' });
          const config = await first.http.post('/v1/configs').set(admin).send({ name: 'shared config', config: { request_timeout: 1000 } });
          // The second instance caches both...
          assert.equal((await second.services.savedResources.provider(organisationId, workspaceId, '@shared'))?.target.apiKey, 'sk-shared-one-000000');
          assert.equal((await second.services.savedResources.config(organisationId, workspaceId, 'shared-config'))?.version, 1);
          // ...then the first instance changes them.
          await first.http.put(`/v1/providers/${provider.body.id}`).set(admin).send({ key: 'sk-shared-two-000000' });
          await first.http.put(`/v1/configs/${config.body.id}`).set(admin).send({ config: { request_timeout: 2000 } });
          await waitFor(async () => (await second.services.savedResources.provider(organisationId, workspaceId, '@shared'))?.target.apiKey === 'sk-shared-two-000000');
          await waitFor(async () => (await second.services.savedResources.config(organisationId, workspaceId, 'shared-config'))?.version === 2);
          assert.deepEqual((await second.services.savedResources.config(organisationId, workspaceId, 'shared-config'))?.config, { request_timeout: 2000 });
        } finally {
          await second.close();
          await first.close();
          await db.drop();
        }
      },
    );
  });
}

/** Pub/sub delivery to the other instance is asynchronous: poll (bounded) until it has landed. */
async function waitFor(condition: () => Promise<boolean>, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('the other instance did not see the change');
}
