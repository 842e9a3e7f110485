import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeUser } from './people.js';

const DAY = 86_400_000;

for (const engine of fullEngines()) {
  describe(`users, members and invitations (${engine.name})`, () => {
    let app: TestApp;
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
    });
    after(() => app.close());

    test('invite, accept with the token, and the user joins the named workspaces', async () => {
      const invite = await app.http
        .post('/v1/admin/users/invites')
        .set(admin())
        .send({ email: 'Ada@Example.com', role: 'member', workspaces: [{ workspace_id: 'default', role: 'manager' }] });
      assert.equal(invite.status, 201);
      assert.equal(invite.body.status, 'pending');
      assert.equal(invite.body.email, 'ada@example.com');
      assert.equal(invite.body.expires_at, new Date(clock + 7 * DAY).toISOString());
      assert.deepEqual(invite.body.workspaces, [{ workspace_id: app.boot.workspaceId, role: 'manager' }]);
      const token: string = invite.body.token;

      const fetched = await app.http.get(`/v1/admin/users/invites/${invite.body.id}`).set(admin());
      assert.equal(fetched.body.token, undefined);
      const listed = await app.http.get('/v1/admin/users/invites').set(admin());
      assert.ok(listed.body.data.some((i: { id: string }) => i.id === invite.body.id));

      const accepted = await app.http.post('/v1/admin/users/invites/accept').send({ token, first_name: 'Ada' });
      assert.equal(accepted.status, 201);
      assert.equal(accepted.body.first_name, 'Ada');
      assert.deepEqual(accepted.body.workspaces, [{ workspace_id: app.boot.workspaceId, role: 'manager' }]);
      assert.equal((await app.http.get(`/v1/admin/users/invites/${invite.body.id}`).set(admin())).body.status, 'accepted');
      const again = await app.http.post('/v1/admin/users/invites/accept').send({ token });
      assert.equal(again.status, 409);
      assert.equal((await app.http.post('/v1/admin/users/invites/accept').send({ token: 'gwinv-nope' })).status, 404);
      const dup = await app.http.post('/v1/admin/users/invites').set(admin()).send({ email: 'ada@example.com', role: 'member' });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.error.code, 'user_exists');
    });

    test('invites expire, resend issues a new token and expiry, cancel stops the token', async () => {
      const invite = await app.http.post('/v1/admin/users/invites').set(admin()).send({ email: 'late@example.com', role: 'member', expires_in_days: 1 });
      clock += 2 * DAY;
      assert.equal((await app.http.get(`/v1/admin/users/invites/${invite.body.id}`).set(admin())).body.status, 'expired');
      const expired = await app.http.post('/v1/admin/users/invites/accept').send({ token: invite.body.token });
      assert.equal(expired.status, 409);
      assert.equal(expired.body.error.code, 'invite_expired');

      const resent = await app.http.post(`/v1/admin/users/invites/${invite.body.id}/resend`).set(admin()).send({});
      assert.equal(resent.status, 200);
      assert.equal(resent.body.status, 'pending');
      assert.notEqual(resent.body.token, invite.body.token);
      assert.equal((await app.http.post('/v1/admin/users/invites/accept').send({ token: invite.body.token })).status, 404);

      const cancelled = await app.http.delete(`/v1/admin/users/invites/${invite.body.id}`).set(admin());
      assert.equal(cancelled.status, 200);
      assert.equal((await app.http.get(`/v1/admin/users/invites/${invite.body.id}`).set(admin())).body.status, 'cancelled');
      const after = await app.http.post('/v1/admin/users/invites/accept').send({ token: resent.body.token });
      assert.equal(after.status, 409);
      assert.equal((await app.http.post(`/v1/admin/users/invites/${invite.body.id}/resend`).set(admin()).send({})).status, 409);
    });

    test('invites: validation, unknown workspaces and the email-domain allow list', async () => {
      assert.equal((await app.http.post('/v1/admin/users/invites').set(admin()).send({ email: 'not-an-email', role: 'member' })).status, 400);
      assert.equal((await app.http.post('/v1/admin/users/invites').set(admin()).send({ email: 'a@example.com', role: 'owner' })).status, 400);
      const ws = await app.http
        .post('/v1/admin/users/invites')
        .set(admin())
        .send({ email: 'a@example.com', role: 'member', workspaces: [{ workspace_id: 'nope', role: 'member' }] });
      assert.equal(ws.status, 400);
      assert.equal(ws.body.error.param, 'workspaces[0].workspace_id');

      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ email_domains: [{ domain: 'corp.test', allow_subdomains: true }, { domain: 'exact.test' }] });
      const invite = (email: string) => app.http.post('/v1/admin/users/invites').set(admin()).send({ email, role: 'member' });
      assert.equal((await invite('a@corp.test')).status, 201);
      assert.equal((await invite('b@eu.corp.test')).status, 201);
      assert.equal((await invite('c@exact.test')).status, 201);
      const sub = await invite('d@sub.exact.test');
      assert.equal(sub.status, 400);
      assert.equal(sub.body.error.code, 'email_domain_not_allowed');
      assert.equal((await invite('e@other.test')).status, 400);
      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ email_domains: [] });
    });

    test('members: add, list, change role, remove (which revokes their keys of that workspace)', async () => {
      const user = await makeUser(app, 'member');
      const path = `/v1/workspaces/${app.boot.workspaceId}/users`;
      const added = await app.http.post(path).set(admin()).send({ user_id: user.id, role: 'member' });
      assert.equal(added.status, 201);
      assert.equal(added.body.email, user.email);
      assert.equal((await app.http.post(path).set(admin()).send({ user_id: user.id, role: 'member' })).status, 409);
      assert.equal((await app.http.post(path).set(admin()).send({ user_id: user.id, role: 'boss' })).status, 400);

      const list = await app.http.get(path).set(admin());
      assert.ok(list.body.data.some((m: { user_id: string; role: string }) => m.user_id === user.id && m.role === 'member'));

      const promoted = await app.http.put(`${path}/${user.id}`).set(admin()).send({ role: 'manager' });
      assert.equal(promoted.status, 200);
      assert.equal(promoted.body.role, 'manager');

      const key = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'k', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: ['workspaces.read'] });
      assert.equal(key.status, 201);
      const headers = { 'x-gw-api-key': key.body.key };
      assert.equal((await app.http.get(`/v1/workspaces/${app.boot.workspaceId}`).set(headers)).status, 200);

      assert.equal((await app.http.delete(`${path}/${user.id}`).set(admin())).status, 200);
      assert.equal((await app.http.get(`/v1/workspaces/${app.boot.workspaceId}`).set(headers)).status, 401);
      assert.equal((await app.http.delete(`${path}/${user.id}`).set(admin())).status, 404);
    });

    test('users: list, get, update, remove; the last owner stays', async () => {
      const user = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const list = await app.http.get('/v1/admin/users?limit=100').set(admin());
      assert.ok(list.body.data.some((u: { id: string }) => u.id === user.id));
      const got = await app.http.get(`/v1/admin/users/${user.id}`).set(admin());
      assert.deepEqual(got.body.workspaces, [{ workspace_id: app.boot.workspaceId, role: 'member' }]);

      const updated = await app.http.put(`/v1/admin/users/${user.id}`).set(admin()).send({ first_name: 'Grace', role: 'admin' });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.first_name, 'Grace');
      assert.equal(updated.body.role, 'admin');
      assert.equal((await app.http.put(`/v1/admin/users/${user.id}`).set(admin()).send({ nickname: 'x' })).status, 400);

      const key = await app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'k', workspace_id: app.boot.workspaceId, user_id: user.id, scopes: ['workspaces.read'] });
      const removed = await app.http.delete(`/v1/admin/users/${user.id}`).set(admin());
      assert.equal(removed.status, 200);
      assert.equal((await app.http.get(`/v1/admin/users/${user.id}`).set(admin())).status, 404);
      assert.equal((await app.http.get(`/v1/workspaces/${app.boot.workspaceId}`).set({ 'x-gw-api-key': key.body.key })).status, 401);

      const owner = (await app.services.db('users').where({ role: 'owner' }).first()).id;
      const lastOwner = await app.http.delete(`/v1/admin/users/${owner}`).set(admin());
      assert.equal(lastOwner.status, 409);
      assert.equal(lastOwner.body.error.code, 'last_owner');
    });

    test('only an owner grants the owner role', async () => {
      const target = await makeUser(app, 'member');
      const service = await app.http.post('/v1/api-keys/organisation/service').set(admin()).send({ name: 's', scopes: ['users.update'] });
      const refused = await app.http.put(`/v1/admin/users/${target.id}`).set({ 'x-gw-api-key': service.body.key }).send({ role: 'owner' });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'owner_only');
      const granted = await app.http.put(`/v1/admin/users/${target.id}`).set(admin()).send({ role: 'owner' });
      assert.equal(granted.body.role, 'owner');
    });
  });
}
