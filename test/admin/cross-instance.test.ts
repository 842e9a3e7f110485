import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ORGANISATION_SETTINGS_TOPIC } from '../../gateway/saved-resources.js';
import { clusterEngines } from '../helpers/engines.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';
import { makeUser } from './people.js';

/**
 * Two gw instances over one database and one Redis: a change made through one is in force on
 * the other's very next request (Redis pub/sub carries the invalidation). Needs GW_TEST_REDIS_URL;
 * runs on a shared SQLite file and, with GW_TEST_DATABASE_URL, on Postgres.
 */
const engines = clusterEngines();

if (!engines.length) test.skip('cross-instance invalidation needs GW_TEST_REDIS_URL', () => undefined);

for (const engine of engines) {
  describe(`changes reach every instance at once (${engine.name})`, () => {
    let cluster: TestCluster | undefined;
    let a: TestApp;
    let b: TestApp;
    const admin = () => ({ 'x-gw-api-key': a.adminKey });

    before(async () => {
      cluster = await startTestCluster(2, { engine });
      [a, b] = cluster.apps as [TestApp, TestApp];
    });
    after(async () => {
      await cluster?.close();
    });

    async function keyOnBoth(scopes = ['workspaces.read']) {
      const created = await a.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'x', workspace_id: 'default', scopes });
      assert.equal(created.status, 201);
      const headers = { 'x-gw-api-key': created.body.key as string };
      // Both instances have the key cached now.
      assert.equal((await a.http.get(`/v1/workspaces/${a.boot.workspaceId}`).set(headers)).status, 200);
      assert.equal((await b.http.get(`/v1/workspaces/${b.boot.workspaceId}`).set(headers)).status, 200);
      return { id: created.body.id as string, headers };
    }

    test('both instances share one organisation', () => {
      assert.equal(a.boot.organisationId, b.boot.organisationId);
    });

    test('a key revoked on A is refused on the next request to B', async () => {
      const key = await keyOnBoth();
      assert.equal((await a.http.delete(`/v1/api-keys/${key.id}`).set(admin())).status, 200);
      const res = await b.http.get(`/v1/workspaces/${b.boot.workspaceId}`).set(key.headers);
      assert.equal(res.status, 401);
    });

    test('scopes changed on A apply on the next request to B', async () => {
      const key = await keyOnBoth(['workspaces.read', 'workspaces.list']);
      await a.http.put(`/v1/api-keys/${key.id}`).set(admin()).send({ scopes: ['workspaces.list'] });
      const res = await b.http.get(`/v1/workspaces/${b.boot.workspaceId}`).set(key.headers);
      assert.equal(res.status, 403);
    });

    test('a key rotated on A without a transition stops working on B at once', async () => {
      const key = await keyOnBoth();
      const rotated = await a.http.post(`/v1/api-keys/${key.id}/rotate`).set(admin()).send({});
      assert.equal((await b.http.get(`/v1/workspaces/${b.boot.workspaceId}`).set(key.headers)).status, 401);
      assert.equal((await b.http.get(`/v1/workspaces/${b.boot.workspaceId}`).set({ 'x-gw-api-key': rotated.body.key })).status, 200);
    });

    test("a user's demotion on A bounds their key on the next request to B", async () => {
      const user = await makeUser(a, 'member', { id: a.boot.workspaceId, role: 'manager' });
      const created = await a.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'mgr', workspace_id: 'default', user_id: user.id, scopes: ['api_keys.list'] });
      assert.equal(created.status, 201);
      const headers = { 'x-gw-api-key': created.body.key as string };
      assert.equal((await b.http.get('/v1/api-keys').set(headers)).status, 200);
      assert.equal((await a.http.put(`/v1/workspaces/${a.boot.workspaceId}/users/${user.id}`).set(admin()).send({ role: 'member' })).status, 200);
      const res = await b.http.get('/v1/api-keys').set(headers);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'missing_scope');
    });

    test('an organisation settings change on A is announced to B', async () => {
      const heard: string[] = [];
      b.services.bus.subscribe(ORGANISATION_SETTINGS_TOPIC, (id) => heard.push(id));
      await a.http.put('/v1/admin/organisation/settings').set(admin()).send({ disable_auto_provision_user: true });
      // The announcement travels over Redis; B's next request is what must see it, so wait on B's own traffic.
      await b.http.get('/health');
      assert.deepEqual(heard, [a.boot.organisationId]);
    });
  });
}
