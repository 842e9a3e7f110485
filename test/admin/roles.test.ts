import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allScopes } from '../../core/scopes.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { keyFor, makeUser } from './people.js';

/** The spec's two tables: who may create which keys, and what an admin key and a workspace key may call. */
for (const engine of fullEngines()) {
  describe(`roles and key kinds (${engine.name})`, () => {
    let app: TestApp;
    let otherWorkspaceId: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const MANAGER_SCOPES = ['api_keys.create', 'completions.write', 'configs.read', 'configs.create'];

    before(async () => {
      app = await startTestApp({ engine });
      otherWorkspaceId = (await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Other' })).body.id;
    });
    after(() => app.close());

    const adminKeyBody = { name: 'adm', scopes: ['workspaces.list'] };
    const workspaceKeyBody = (workspace_id: string, scopes = ['completions.write']) => ({ name: 'ws', workspace_id, scopes });

    for (const role of ['owner', 'admin'] as const) {
      test(`organisation ${role}: creates admin keys and workspace keys for any workspace`, async () => {
        const user = await makeUser(app, role);
        const key = await keyFor(app, { userId: user.id, type: 'organisation', workspaceId: null, scopes: [...allScopes()] });
        const headers = { 'x-gw-api-key': key };
        assert.equal((await app.http.post('/v1/api-keys/organisation/service').set(headers).send(adminKeyBody)).status, 201);
        assert.equal((await app.http.post('/v1/api-keys/workspace/service').set(headers).send(workspaceKeyBody(app.boot.workspaceId))).status, 201);
        assert.equal((await app.http.post('/v1/api-keys/workspace/service').set(headers).send(workspaceKeyBody(otherWorkspaceId))).status, 201);
      });
    }

    test('organisation admin: manages users but only an owner makes or unmakes owners', async () => {
      const adminUser = await makeUser(app, 'admin');
      const key = await keyFor(app, { userId: adminUser.id, type: 'organisation', workspaceId: null, scopes: [...allScopes()] });
      const target = await makeUser(app, 'member');
      const promote = (role: string, headers: Record<string, string>) => app.http.put(`/v1/admin/users/${target.id}`).set(headers).send({ role });
      assert.equal((await promote('admin', { 'x-gw-api-key': key })).status, 200);
      const denied = await promote('owner', { 'x-gw-api-key': key });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'owner_only');
      // The bootstrap admin key acts for the owner.
      assert.equal((await promote('owner', admin())).status, 200);
      assert.equal((await promote('admin', { 'x-gw-api-key': key })).status, 403, 'nor take the owner role away');
    });

    test('organisation member: creates no admin key even with an admin-kind key in hand', async () => {
      const user = await makeUser(app, 'member');
      const key = await keyFor(app, { userId: user.id, type: 'organisation', workspaceId: null, scopes: [...allScopes()] });
      const res = await app.http.post('/v1/api-keys/organisation/service').set({ 'x-gw-api-key': key }).send(adminKeyBody);
      assert.equal(res.status, 403);
      // The key acts for a member: it holds no more than a member's role, whatever was stored on it.
      assert.equal(res.body.error.code, 'missing_scope');
    });

    for (const role of ['admin', 'manager'] as const) {
      test(`workspace ${role}: workspace keys for its own workspace only, within its role, no admin keys`, async () => {
        const user = await makeUser(app, 'member', { id: app.boot.workspaceId, role });
        const created = await app.http
          .post('/v1/api-keys/workspace/user')
          .set(admin())
          .send({ name: `${role} key`, workspace_id: app.boot.workspaceId, user_id: user.id, scopes: MANAGER_SCOPES });
        assert.equal(created.status, 201);
        const headers = { 'x-gw-api-key': created.body.key };
        const own = await app.http.post('/v1/api-keys/workspace/service').set(headers).send(workspaceKeyBody(app.boot.workspaceId, ['configs.read']));
        assert.equal(own.status, 201);
        const other = await app.http.post('/v1/api-keys/workspace/service').set(headers).send(workspaceKeyBody(otherWorkspaceId));
        assert.equal(other.status, 403);
        const adminKey = await app.http.post('/v1/api-keys/organisation/service').set(headers).send(adminKeyBody);
        assert.equal(adminKey.status, 403);

        // A key for the person cannot carry organisation-only scopes in the first place.
        const above = await app.http
          .post('/v1/api-keys/workspace/user')
          .set(admin())
          .send({ name: 'too much', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: ['audit_logs.list'] });
        assert.equal(above.status, 403);
        assert.equal(above.body.error.code, 'scope_above_role');
      });
    }

    test('a manager cannot mint organisation-only scopes even when its stored key lists them', async () => {
      const user = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'manager' });
      const key = await keyFor(app, { userId: user.id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['api_keys.create', 'users.list'] });
      const res = await app.http.post('/v1/api-keys/workspace/service').set({ 'x-gw-api-key': key }).send(workspaceKeyBody(app.boot.workspaceId, ['users.list']));
      assert.equal(res.status, 403);
      // users.list is above a manager's role, so the key does not hold it in force and cannot hand it on.
      assert.equal(res.body.error.code, 'scope_escalation');
      assert.equal((await app.http.get('/v1/admin/users').set({ 'x-gw-api-key': key })).status, 403);
    });

    test('workspace member: creates no keys (a key minted before a demotion included)', async () => {
      const user = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const refused = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'm', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: ['api_keys.create'] });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'scope_above_role');
      const memberKey = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'm', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: ['completions.write', 'configs.read'] });
      assert.equal(memberKey.status, 201);

      const stale = await keyFor(app, { userId: user.id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['api_keys.create', 'completions.write'] });
      const res = await app.http.post('/v1/api-keys/workspace/service').set({ 'x-gw-api-key': stale }).send(workspaceKeyBody(app.boot.workspaceId));
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'missing_scope');
    });

    test("a workspace role change bounds the user's keys on their next request, both ways", async () => {
      const user = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'manager' });
      const created = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'mgr', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: MANAGER_SCOPES });
      const headers = { 'x-gw-api-key': created.body.key };
      const newConfig = (name: string) => app.http.post('/v1/configs').set(headers).send({ name, config: { retry: { attempts: 1 } } });
      const first = await newConfig('as manager');
      assert.equal(first.status, 201);

      const member = `/v1/workspaces/${app.boot.workspaceId}/users/${user.id}`;
      assert.equal((await app.http.put(member).set(admin()).send({ role: 'member' })).status, 200);
      const demoted = await newConfig('as member');
      assert.equal(demoted.status, 403);
      assert.equal(demoted.body.error.code, 'missing_scope');
      assert.equal((await app.http.get(`/v1/configs/${first.body.id}`).set(headers)).status, 200, 'a member still reads configs');

      assert.equal((await app.http.put(member).set(admin()).send({ role: 'manager' })).status, 200);
      assert.equal((await newConfig('manager again')).status, 201);
    });

    test('an organisation admin demoted to member loses what the admin role gave, at once', async () => {
      const user = await makeUser(app, 'admin');
      const key = await keyFor(app, { userId: user.id, type: 'organisation', workspaceId: null, scopes: ['workspaces.create', 'users.list'] });
      const headers = { 'x-gw-api-key': key };
      assert.equal((await app.http.get('/v1/admin/users').set(headers)).status, 200);
      assert.equal((await app.http.put(`/v1/admin/users/${user.id}`).set(admin()).send({ role: 'member' })).status, 200);
      const denied = await app.http.get('/v1/admin/users').set(headers);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'missing_scope');
      assert.equal((await app.http.post('/v1/workspaces').set(headers).send({ name: 'Not any more' })).status, 403);
    });

    test('a user key needs its user in the workspace', async () => {
      const outsider = await makeUser(app, 'member');
      const res = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'o', workspace_id: app.boot.workspaceId, user_id: outsider.id, scopes: ['completions.write'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'user_not_in_workspace');
    });

    describe('admin key vs workspace key', () => {
      let workspaceKey: Record<string, string>;
      let workspaceUserKey: Record<string, string>;
      let adminScoped: Record<string, string>;
      const RESOURCE_SCOPES = ['configs.list', 'configs.create', 'virtual_keys.list', 'virtual_keys.create'];
      before(async () => {
        const scopes = ['organisation_settings.read', 'workspaces.create', 'workspaces.list', 'users.list', 'workspace_users.create', 'api_keys.list', 'audit_logs.list', ...RESOURCE_SCOPES];
        const ws = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send(workspaceKeyBody(app.boot.workspaceId, scopes));
        const org = await app.http.post('/v1/api-keys/organisation/service').set(admin()).send({ name: 'org', scopes });
        // A workspace manager's own key: as much as a manager may hold.
        const manager = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'manager' });
        const user = await app.http
          .post('/v1/api-keys/workspace/user')
          .set(admin())
          .send({ name: 'mgr', workspace_id: app.boot.workspaceId, user_id: manager.id, scopes: ['workspaces.list', 'api_keys.list', ...RESOURCE_SCOPES] });
        assert.equal(user.status, 201, JSON.stringify(user.body));
        workspaceKey = { 'x-gw-api-key': ws.body.key };
        workspaceUserKey = { 'x-gw-api-key': user.body.key };
        adminScoped = { 'x-gw-api-key': org.body.key };
      });

      const adminOnly: Array<[string, 'get' | 'post', string, Record<string, unknown>?]> = [
        ['organisation settings', 'get', '/v1/admin/organisation/settings'],
        ['create workspaces', 'post', '/v1/workspaces', { name: 'Kinds' }],
        ['manage users', 'get', '/v1/admin/users'],
        ['audit logs', 'get', '/v1/audit-logs'],
      ];
      for (const [what, method, path, payload] of adminOnly) {
        test(`${what}: admin key yes, workspace service and user keys no`, async () => {
          const allowed = await app.http[method](path).set(adminScoped).send(payload);
          assert.ok(allowed.status === 200 || allowed.status === 201, `${allowed.status} ${JSON.stringify(allowed.body)}`);
          for (const key of [workspaceKey, workspaceUserKey]) {
            const denied = await app.http[method](path).set(key).send(payload);
            assert.equal(denied.status, 403);
            assert.equal(denied.body.error.code, 'key_kind_not_allowed');
          }
        });
      }

      test('workspace-level resources: admin key sees every workspace, a workspace key its own', async () => {
        await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ ...workspaceKeyBody(otherWorkspaceId), name: 'elsewhere' });
        const all = await app.http.get('/v1/api-keys?limit=100').set(adminScoped);
        assert.ok(all.body.data.some((k: { workspace_id: string | null }) => k.workspace_id === otherWorkspaceId));
        const own = await app.http.get('/v1/api-keys?limit=100').set(workspaceKey);
        assert.ok(own.body.data.length > 0);
        assert.ok(own.body.data.every((k: { workspace_id: string | null }) => k.workspace_id === app.boot.workspaceId));
        const workspaces = await app.http.get('/v1/workspaces').set(workspaceKey);
        assert.deepEqual(workspaces.body.data.map((w: { id: string }) => w.id), [app.boot.workspaceId]);
        const userKeys = await app.http.get('/v1/api-keys?limit=100').set(workspaceUserKey);
        assert.ok(userKeys.body.data.every((k: { workspace_id: string | null }) => k.workspace_id === app.boot.workspaceId));
      });

      test('configs and providers: admin key in any workspace, workspace keys (service and user) in their own only', async () => {
        const inOther = { workspace_id: otherWorkspaceId };
        const config = (name: string) => ({ name, config: { retry: { attempts: 1 } } });
        const provider = (name: string) => ({ name, ai_provider_id: 'openai', key: 'sk-roles-test-000000' });
        assert.equal((await app.http.post('/v1/configs').set(adminScoped).send({ ...config('adm other'), ...inOther })).status, 201);
        assert.equal((await app.http.post('/v1/providers').set(adminScoped).send({ ...provider('adm other'), ...inOther })).status, 201);
        for (const [kind, key] of [['service', workspaceKey], ['user', workspaceUserKey]] as const) {
          assert.equal((await app.http.post('/v1/configs').set(key).send(config(`own ${kind}`))).status, 201);
          assert.equal((await app.http.post('/v1/providers').set(key).send(provider(`own ${kind}`))).status, 201);
          const elsewhere = await app.http.post('/v1/configs').set(key).send({ ...config(`other ${kind}`), ...inOther });
          assert.equal(elsewhere.status, 403, `${kind} key`);
          assert.equal((await app.http.post('/v1/providers').set(key).send({ ...provider(`other ${kind}`), ...inOther })).status, 403, `${kind} key`);
          for (const path of ['/v1/configs?limit=100', '/v1/providers?limit=100']) {
            const seen = (await app.http.get(path).set(key)).body.data as Array<{ workspace_id: string }>;
            assert.ok(seen.length > 0 && seen.every((item) => item.workspace_id === app.boot.workspaceId), `${kind} key on ${path}`);
          }
        }
        for (const path of ['/v1/configs?limit=100', '/v1/providers?limit=100']) {
          const seen = (await app.http.get(path).set(adminScoped)).body.data as Array<{ workspace_id: string }>;
          assert.ok(seen.some((item) => item.workspace_id === otherWorkspaceId), `admin key on ${path}`);
          assert.ok(seen.some((item) => item.workspace_id === app.boot.workspaceId), `admin key on ${path}`);
        }
      });
    });
  });
}
