/**
 * GET /v1/auth/key: what the presented key is and may do, so a console or script signed in with
 * a key can hide what it cannot do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const engine of storeEngines()) {
  describe(`GET /v1/auth/key (${engine.name})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ engine });
    });
    after(() => app.close());

    test('an admin key: itself (no secret), every scope it holds, and the default workspace for its gateway calls', async () => {
      const res = await app.http.get('/v1/auth/key').set('x-gw-api-key', app.adminKey);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.object, 'auth_key');
      assert.equal(res.body.api_key.type, 'organisation');
      assert.equal(res.body.api_key.key, undefined, 'never the secret');
      assert.ok(res.body.scopes.includes('api_keys.create'));
      assert.equal(res.body.workspace_id, app.boot.workspaceId);
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    test('a workspace key with two scopes answers those two, and its workspace', async () => {
      const created = await app.http
        .post('/v1/api-keys/workspace/service')
        .set('x-gw-api-key', app.adminKey)
        .send({ name: 'reader', workspace_id: app.boot.workspaceId, scopes: ['logs.list', 'logs.view'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const res = await app.http.get('/v1/auth/key').set('authorization', `Bearer ${created.body.key}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.api_key.id, created.body.id);
      assert.deepEqual(res.body.scopes, ['logs.list', 'logs.view']);
      assert.equal(res.body.workspace_id, app.boot.workspaceId);
      assert.equal(res.body.api_key.workspace_id, app.boot.workspaceId);
    });

    test('no key, or a wrong one, is 401', async () => {
      assert.equal((await app.http.get('/v1/auth/key')).status, 401);
      const wrong = await app.http.get('/v1/auth/key').set('x-gw-api-key', 'gw-not-a-key-000000000000');
      assert.equal(wrong.status, 401);
      assert.ok(wrong.body.error.message);
    });
  });
}
