import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const engine of fullEngines()) {
  describe(`workspaces (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine });
    });
    after(() => app.close());

    async function saveConfig(slug: string, workspaceId: string | null = null) {
      const now = new Date().toISOString();
      return app.services.store.transaction((tx) =>
        tx.configs.create(
          { organisation_id: app.boot.organisationId, workspace_id: workspaceId, name: slug, slug, created_by: null },
          { config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] }, secrets: null },
          now,
        ),
      );
    }

    test('create, get by id or slug, list, update, delete', async () => {
      const created = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Research', description: 'R&D' });
      assert.equal(created.status, 201);
      assert.equal(created.body.slug, 'research');
      assert.equal(created.body.is_default, false);
      assert.equal(created.body.user_api_key_auto_create, false);
      assert.equal(created.body.user_api_key_ttl, null);

      const bySlug = await app.http.get('/v1/workspaces/research').set(admin());
      assert.equal(bySlug.status, 200);
      assert.equal(bySlug.body.id, created.body.id);

      const list = await app.http.get('/v1/workspaces?limit=1').set(admin());
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      assert.equal(list.body.has_more, true);
      const rest = await app.http.get(`/v1/workspaces?limit=10&cursor=${list.body.next_cursor}`).set(admin());
      assert.ok(rest.body.data.length >= 1);

      const updated = await app.http
        .put(`/v1/workspaces/${created.body.id}`)
        .set(admin())
        .send({ name: 'Research 2', user_api_key_auto_create: true, user_api_key_ttl: 86400 });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.name, 'Research 2');
      assert.equal(updated.body.user_api_key_auto_create, true);
      assert.equal(updated.body.user_api_key_ttl, 86400);

      const deleted = await app.http.delete(`/v1/workspaces/${created.body.id}`).set(admin());
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.deleted, true);
      assert.equal((await app.http.get(`/v1/workspaces/${created.body.id}`).set(admin())).status, 404);
    });

    test('validation: unknown fields, a bad ttl and a taken slug are refused', async () => {
      const typo = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'x', nmae: 'y' });
      assert.equal(typo.status, 400);
      const ttl = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'x', user_api_key_ttl: 5 });
      assert.equal(ttl.status, 400);
      assert.equal(ttl.body.error.param, 'user_api_key_ttl');
      const taken = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Default', slug: 'default' });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.error.code, 'slug_taken');
    });

    test('GET/PUT /v2/workspaces/{id}: name_format=plain strips a leading emoji icon', async () => {
      const created = await app.http.post('/v1/workspaces').set(admin()).send({ name: '🚀 Launch team', slug: 'launch' });
      assert.equal(created.status, 201);
      const raw = await app.http.get('/v2/workspaces/launch').set(admin());
      assert.equal(raw.body.name, '🚀 Launch team');
      const plain = await app.http.get('/v2/workspaces/launch?name_format=plain').set(admin());
      assert.equal(plain.body.name, 'Launch team');
      await app.http.put('/v2/workspaces/launch').set(admin()).send({ name: '👩🏽‍💻 Devs' });
      assert.equal((await app.http.get('/v2/workspaces/launch?name_format=plain').set(admin())).body.name, 'Devs');
      const bad = await app.http.get('/v2/workspaces/launch?name_format=fancy').set(admin());
      assert.equal(bad.status, 400);
    });

    test('defaults.user_api_key_config takes an id or a slug and answers the slug', async () => {
      const config = await saveConfig('team-default');
      const byId = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Cfg', defaults: { user_api_key_config: config.id } });
      assert.equal(byId.status, 201);
      assert.equal(byId.body.defaults.user_api_key_config, 'team-default');
      const stored = await app.services.store.workspaces.get(app.boot.organisationId, byId.body.id);
      assert.equal(stored!.defaults.user_api_key_config, config.id, 'kept as the id so a slug rename follows');

      const bySlug = await app.http.put(`/v2/workspaces/${byId.body.id}`).set(admin()).send({ defaults: { user_api_key_config: 'team-default' } });
      assert.equal(bySlug.body.defaults.user_api_key_config, 'team-default');
      const unknown = await app.http.put(`/v2/workspaces/${byId.body.id}`).set(admin()).send({ defaults: { user_api_key_config: 'nope' } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'defaults.user_api_key_config');
      const cleared = await app.http.put(`/v2/workspaces/${byId.body.id}`).set(admin()).send({ defaults: { user_api_key_config: null } });
      assert.equal(cleared.body.defaults.user_api_key_config, null);
      assert.deepEqual(await app.services.store.workspaces.defaultingToConfig(app.boot.organisationId, config.id), []);
    });

    test('security_settings: a section changes only when the organisation allows overriding it', async () => {
      const ws = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Sec' });
      const refused = await app.http
        .put(`/v1/workspaces/${ws.body.id}`)
        .set(admin())
        .send({ security_settings: { api_keys: { max_ttl_days: 30 } } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'security_section_not_overridable');
      assert.equal(refused.body.error.param, 'security_settings.api_keys');

      const org = await app.http
        .put('/v1/admin/organisation/settings')
        .set(admin())
        .send({ security_settings: { overridable_sections: ['api_keys'] } });
      assert.equal(org.status, 200);
      const allowed = await app.http
        .put(`/v1/workspaces/${ws.body.id}`)
        .set(admin())
        .send({ security_settings: { api_keys: { max_ttl_days: 30 } } });
      assert.equal(allowed.status, 200);
      assert.deepEqual(allowed.body.security_settings, { api_keys: { max_ttl_days: 30 } });
      const logging = await app.http
        .put(`/v1/workspaces/${ws.body.id}`)
        .set(admin())
        .send({ security_settings: { logging: { store_request_bodies: false } } });
      assert.equal(logging.status, 400);
      assert.equal(logging.body.error.param, 'security_settings.logging');
    });

    test('the default workspace and a workspace with shared prompts cannot be deleted', async () => {
      const defaultWs = await app.http.delete(`/v1/workspaces/${app.boot.workspaceId}`).set(admin());
      assert.equal(defaultWs.status, 409);
      assert.equal(defaultWs.body.error.code, 'default_workspace');

      const ws = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Prompts' });
      // Stands in for the prompts repository (test/prompts/prompt-sharing.test.ts shares for real).
      const shared = new Set([ws.body.id as string]);
      const real = app.services.store.sharedPrompts;
      app.services.store.sharedPrompts = { hasSharedPromptsOrPartials: async (workspaceId) => shared.has(workspaceId) };
      try {
        const blocked = await app.http.delete(`/v1/workspaces/${ws.body.id}`).set(admin());
        assert.equal(blocked.status, 409);
        assert.equal(blocked.body.error.code, 'workspace_has_shared_prompts');
        assert.equal((await app.http.get(`/v1/workspaces/${ws.body.id}`).set(admin())).status, 200, 'still there');
        shared.clear();
        assert.equal((await app.http.delete(`/v1/workspaces/${ws.body.id}`).set(admin())).status, 200);
      } finally {
        app.services.store.sharedPrompts = real;
      }
    });

    test('deleting a workspace stops its keys on the next request', async () => {
      const ws = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Doomed' });
      const key = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'k', workspace_id: ws.body.id, scopes: ['workspaces.read'] });
      assert.equal((await app.http.get(`/v1/workspaces/${ws.body.id}`).set({ 'x-gw-api-key': key.body.key })).status, 200);
      await app.http.delete(`/v1/workspaces/${ws.body.id}`).set(admin());
      assert.equal((await app.http.get(`/v1/workspaces/${ws.body.id}`).set({ 'x-gw-api-key': key.body.key })).status, 401);
    });

    test('deleting a workspace deletes its content (files, assistants, threads) and leaves other workspaces\' alone', async () => {
      const ws = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Content' });
      const scopes = ['assistants.write', 'threads.write', 'completions.write'];
      const doomed = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'd', workspace_id: ws.body.id, scopes });
      const kept = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'k', workspace_id: 'default', scopes });
      const fill = async (key: string) => {
        const headers = { 'x-gw-api-key': key };
        const file = await app.http.post('/v1/files').set(headers).field('purpose', 'assistants').attach('file', Buffer.from('notes'), 'notes.txt');
        assert.equal(file.status, 200, file.text);
        assert.equal((await app.http.post('/v1/assistants').set(headers).send({ model: 'gpt-4o-mini', name: 'a' })).status, 200);
        assert.equal((await app.http.post('/v1/threads').set(headers).send({ messages: [{ role: 'user', content: 'hi' }] })).status, 200);
      };
      await fill(doomed.body.key);
      await fill(kept.body.key);
      const count = async (table: string, workspaceId: string) => Number(((await app.services.db(table).where('workspace_id', workspaceId).count({ n: '*' }).first()) as { n: number | string }).n);
      const tables = ['files', 'assistants', 'assistant_threads', 'assistant_messages'];
      for (const table of tables) assert.equal(await count(table, ws.body.id), 1, table);
      const fileChunks = () => app.services.db('file_chunks').count({ n: '*' }).first() as Promise<{ n: number | string }>;
      const chunksBefore = Number((await fileChunks()).n);

      assert.equal((await app.http.delete(`/v1/workspaces/${ws.body.id}`).set(admin())).status, 200);
      for (const table of tables) {
        assert.equal(await count(table, ws.body.id), 0, `${table} of the deleted workspace`);
        assert.equal(await count(table, app.boot.workspaceId), 1, `${table} of the default workspace`);
      }
      assert.equal(Number((await fileChunks()).n), chunksBefore - 1, 'the file content went with it');
    });

    test('a workspace key sees only its own workspace and cannot create, update or delete one', async () => {
      const key = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'ws', workspace_id: 'default', scopes: ['workspaces.read', 'workspaces.list'] });
      const headers = { 'x-gw-api-key': key.body.key };
      const other = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Other' });
      const list = await app.http.get('/v1/workspaces').set(headers);
      assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [app.boot.workspaceId]);
      assert.equal((await app.http.get(`/v1/workspaces/${other.body.id}`).set(headers)).status, 404);
      const create = await app.http.post('/v1/workspaces').set(headers).send({ name: 'No' });
      assert.equal(create.status, 403);
      assert.equal(create.body.error.code, 'key_kind_not_allowed');
      assert.equal((await app.http.put(`/v1/workspaces/${app.boot.workspaceId}`).set(headers).send({ name: 'No' })).status, 403);
      assert.equal((await app.http.delete(`/v1/workspaces/${other.body.id}`).set(headers)).status, 403);
    });
  });
}
