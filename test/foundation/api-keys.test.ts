import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashApiKeySecret } from '../../core/auth/api-key-secret.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const engine of fullEngines()) {
  describe(`gw API keys (${engine.name})`, () => {
    let app: TestApp;
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
    });
    after(() => app.close());

    async function createKey(body: Record<string, unknown>, path = '/v1/api-keys/organisation/service', headers = admin()) {
      return app.http.post(path).set(headers).send(body);
    }

    test('the secret is shown once at creation, stored only as a hash, and works', async () => {
      const created = await createKey({ name: 'ci', scopes: ['api_keys.read', 'api_keys.list'] });
      assert.equal(created.status, 201);
      const secret: string = created.body.key;
      assert.match(secret, /^gw-/);
      assert.ok(!created.body.masked_key.includes(secret));

      const row = await app.services.db('api_keys').where({ id: created.body.id }).first();
      assert.equal(row.key_hash, hashApiKeySecret(secret));
      assert.ok(!JSON.stringify(row).includes(secret), 'the secret itself is not stored');

      const fetched = await app.http.get(`/v1/api-keys/${created.body.id}`).set(admin());
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.key, undefined);
      assert.ok(!JSON.stringify(fetched.body).includes(secret));

      const own = await app.http.get(`/v1/api-keys/${created.body.id}`).set({ 'x-gw-api-key': secret });
      assert.equal(own.status, 200);
      assert.deepEqual(own.body.scopes, ['api_keys.read', 'api_keys.list']);
    });

    test('workspace service and user keys are bound to a workspace given by id or slug', async () => {
      const service = await createKey({ name: 'svc', workspace_id: 'default', scopes: ['completions.write'] }, '/v1/api-keys/workspace/service');
      assert.equal(service.status, 201);
      assert.equal(service.body.workspace_id, app.boot.workspaceId);
      assert.equal(service.body.type, 'workspace');
      assert.equal(service.body.sub_type, 'service');

      const owner = (await app.services.db('users').first()).id;
      const user = await createKey({ name: 'usr', workspace_id: app.boot.workspaceId, user_id: owner, scopes: ['completions.write'] }, '/v1/api-keys/workspace/user');
      assert.equal(user.status, 201);
      assert.equal(user.body.user_id, owner);

      const missing = await createKey({ name: 'x', workspace_id: 'nope', scopes: ['completions.write'] }, '/v1/api-keys/workspace/service');
      assert.equal(missing.status, 404);
    });

    test('a key cannot grant scopes it does not hold, and a workspace key cannot create admin keys', async () => {
      const limited = await createKey({ name: 'limited', workspace_id: 'default', scopes: ['api_keys.create', 'completions.write'] }, '/v1/api-keys/workspace/service');
      const headers = { 'x-gw-api-key': limited.body.key };
      const escalate = await createKey({ name: 'esc', workspace_id: 'default', scopes: ['logs.export'] }, '/v1/api-keys/workspace/service', headers);
      assert.equal(escalate.status, 403);
      assert.equal(escalate.body.error.code, 'scope_escalation');
      const adminKey = await createKey({ name: 'adm', scopes: ['completions.write'] }, '/v1/api-keys/organisation/service', headers);
      assert.equal(adminKey.status, 403);
      const allowed = await createKey({ name: 'ok', workspace_id: 'default', scopes: ['completions.write'] }, '/v1/api-keys/workspace/service', headers);
      assert.equal(allowed.status, 201);
    });

    test('lists paginate newest first with a cursor, and a bad cursor is a 400', async () => {
      for (let i = 0; i < 7; i++) {
        clock += 1000;
        await createKey({ name: `page-${i}`, scopes: ['logs.view'] });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { data: Array<{ id: string }>; next_cursor: string | null; has_more: boolean } } = await app.http
          .get('/v1/api-keys')
          .query(cursor ? { limit: 3, cursor } : { limit: 3 })
          .set(admin());
        assert.equal(res.status, 200);
        assert.ok(res.body.data.length <= 3);
        seen.push(...res.body.data.map((k) => k.id));
        cursor = res.body.next_cursor;
        assert.equal(res.body.has_more, cursor !== null);
        pages++;
      } while (cursor && pages < 20);
      assert.equal(new Set(seen).size, seen.length, 'no key appears twice');
      const total = await app.services.db('api_keys').count({ n: '*' }).first();
      assert.equal(seen.length, Number(total?.n));
      const names = (await app.http.get('/v1/api-keys').query({ limit: 2 }).set(admin())).body.data.map((k: { name: string }) => k.name);
      assert.deepEqual(names, ['page-6', 'page-5']);

      const bad = await app.http.get('/v1/api-keys').query({ cursor: 'garbage' }).set(admin());
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'cursor');
      const badLimit = await app.http.get('/v1/api-keys').query({ limit: 1000 }).set(admin());
      assert.equal(badLimit.status, 400);
      assert.equal(badLimit.body.error.param, 'limit');
    });

    test('update changes fields and scopes take effect on the next request', async () => {
      const created = await createKey({ name: 'mutable', scopes: ['api_keys.read', 'api_keys.list'] });
      const headers = { 'x-gw-api-key': created.body.key };
      assert.equal((await app.http.get('/v1/api-keys').set(headers)).status, 200);
      const updated = await app.http.put(`/v1/api-keys/${created.body.id}`).set(admin()).send({ name: 'renamed', scopes: ['api_keys.read'] });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.name, 'renamed');
      assert.equal((await app.http.get('/v1/api-keys').set(headers)).status, 403);
    });

    test('rotation_period and rotation_period_days together are rejected; next_rotation_at follows the period', async () => {
      const both = await createKey({ name: 'r', scopes: ['logs.view'], rotation_period: 'weekly', rotation_period_days: 3 });
      assert.equal(both.status, 400);
      assert.equal(both.body.error.param, 'rotation_period_days');
      const weekly = await createKey({ name: 'r', scopes: ['logs.view'], rotation_period: 'weekly' });
      assert.equal(weekly.status, 201);
      assert.equal(weekly.body.next_rotation_at, new Date(clock + 7 * 86_400_000).toISOString());
      const days = await createKey({ name: 'r', scopes: ['logs.view'], rotation_period_days: 400 });
      assert.equal(days.status, 400);
      assert.equal(days.body.error.param, 'rotation_period_days');
    });

    test('a deleted key fails on the very next request', async () => {
      const created = await createKey({ name: 'doomed', scopes: ['api_keys.read'] });
      const headers = { 'x-gw-api-key': created.body.key };
      assert.equal((await app.http.get(`/v1/api-keys/${created.body.id}`).set(headers)).status, 200);
      const deleted = await app.http.delete(`/v1/api-keys/${created.body.id}`).set(admin());
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.deleted, true);
      const after = await app.http.get(`/v1/api-keys/${created.body.id}`).set(headers);
      assert.equal(after.status, 401);
    });

    test('rotation with a transition period: both secrets work until it ends, then only the new one', async () => {
      const created = await createKey({ name: 'rotating', scopes: ['api_keys.read'] });
      const oldSecret = created.body.key;
      const rotated = await app.http.post(`/v1/api-keys/${created.body.id}/rotate`).set(admin()).send({ key_transition_period_ms: 60_000 });
      assert.equal(rotated.status, 200);
      const newSecret = rotated.body.key;
      assert.notEqual(newSecret, oldSecret);
      const path = `/v1/api-keys/${created.body.id}`;
      assert.equal((await app.http.get(path).set({ 'x-gw-api-key': oldSecret })).status, 200);
      assert.equal((await app.http.get(path).set({ 'x-gw-api-key': newSecret })).status, 200);
      clock += 61_000;
      const expired = await app.http.get(path).set({ 'x-gw-api-key': oldSecret });
      assert.equal(expired.status, 401);
      assert.equal(expired.body.error.code, 'expired_api_key');
      assert.equal((await app.http.get(path).set({ 'x-gw-api-key': newSecret })).status, 200);
    });

    test('rotation without a transition period retires the old secret at once', async () => {
      const created = await createKey({ name: 'rotating-now', scopes: ['api_keys.read'] });
      const rotated = await app.http.post(`/v1/api-keys/${created.body.id}/rotate`).set(admin());
      assert.equal(rotated.status, 200);
      assert.equal((await app.http.get(`/v1/api-keys/${created.body.id}`).set({ 'x-gw-api-key': created.body.key })).status, 401);
    });

    test('an expired key is refused and shown as expired', async () => {
      const created = await createKey({ name: 'short', scopes: ['api_keys.read'], expires_at: new Date(clock + 5_000).toISOString() });
      assert.equal(created.status, 201);
      assert.equal((await app.http.get(`/v1/api-keys/${created.body.id}`).set({ 'x-gw-api-key': created.body.key })).status, 200);
      clock += 6_000;
      const refused = await app.http.get(`/v1/api-keys/${created.body.id}`).set({ 'x-gw-api-key': created.body.key });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'expired_api_key');
      const shown = await app.http.get(`/v1/api-keys/${created.body.id}`).set(admin());
      assert.equal(shown.body.status, 'expired');
      const past = await createKey({ name: 'past', scopes: ['api_keys.read'], expires_at: new Date(clock - 1).toISOString() });
      assert.equal(past.status, 400);
      assert.equal(past.body.error.param, 'expires_at');
    });

    test('GET /v2/api-keys?ids= looks up several keys; unknown ids are left out; bad ids are a 400', async () => {
      const a = await createKey({ name: 'a', scopes: ['logs.view'] });
      const b = await createKey({ name: 'b', scopes: ['logs.view'] });
      const unknown = '00000000-0000-4000-8000-000000000000';
      const res = await app.http.get('/v2/api-keys').query({ ids: `${a.body.id},${b.body.id},${unknown}` }).set(admin());
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((k: { id: string }) => k.id).sort(), [a.body.id, b.body.id].sort());
      const bad = await app.http.get('/v2/api-keys').query({ ids: 'not-a-uuid' }).set(admin());
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'ids');
    });
  });
}
