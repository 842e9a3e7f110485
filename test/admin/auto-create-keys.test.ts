import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { autoCreateUserKey } from '../../handlers/workspaces/auto-create-key.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { keyFor, makeUser } from './people.js';

/**
 * User key auto-create: a user joining a workspace with auto-create on gets one workspace user key
 * (scopes cut to their role, expiry from the workspace TTL) whose secret nobody sees until the user
 * rotates it; the workspace default config serves its gateway calls; leaving the workspace revokes it.
 */
const AUTO_SCOPES = ['completions.write', 'configs.read', 'api_keys.update'];
const messages = [{ role: 'user', content: 'hi' }];

for (const engine of fullEngines()) {
  describe(`auto-created user keys (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    // A fixed clock, so expires_at can be checked exactly.
    const clock = Date.parse('2026-11-23T12:00:00.000Z');
    let counter = 0;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    async function orgSettings(settings: Record<string, unknown>) {
      const res = await app.http.put('/v1/admin/organisation/settings').set(admin()).send(settings);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }

    async function workspace(fields: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
      const res = await app.http.post('/v1/workspaces').set(admin()).send({ name: `auto ${++counter}`, ...fields });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }

    async function addMember(workspaceId: string, userId: string, role: 'admin' | 'manager' | 'member' = 'member') {
      const res = await app.http.post(`/v1/workspaces/${workspaceId}/users`).set(admin()).send({ user_id: userId, role });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.key, undefined, 'the admin never sees the secret');
      return res;
    }

    /** The user's keys of a workspace, as the Admin API lists them. */
    async function keysOf(workspaceId: string, userId: string) {
      const res = await app.http.get('/v1/api-keys').query({ workspace_id: workspaceId, limit: 100 }).set(admin());
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.data as Array<Record<string, unknown>>).filter((key) => key.user_id === userId);
    }

    const activeAuto = async (workspaceId: string, userId: string) =>
      (await keysOf(workspaceId, userId)).filter((key) => key.auto_created === true && key.status === 'active');

    /** The user's one active auto-created key of the workspace (fails on none or several). */
    async function theAutoKey(workspaceId: string, userId: string) {
      const keys = await activeAuto(workspaceId, userId);
      assert.equal(keys.length, 1, JSON.stringify(keys));
      return keys[0]!;
    }

    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, now: () => clock, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });
    beforeEach(() => orgSettings({ user_api_key_auto_create: true, default_workspace_user_api_key_auto_create: false, user_api_key_auto_create_scopes: AUTO_SCOPES }));

    test('an auto-created key expires within security_settings.api_keys.max_ttl_days', async () => {
      await orgSettings({ security_settings: { overridable_sections: ['api_keys'] } });
      const ws = await workspace({ user_api_key_ttl: 30 * 86_400, security_settings: { api_keys: { max_ttl_days: 2 } } });
      const member = await makeUser(app, 'member');
      await addMember(ws.id, member.id, 'member');
      assert.equal((await theAutoKey(ws.id, member.id)).expires_at, new Date(clock + 2 * 86_400_000).toISOString());
      await orgSettings({ security_settings: {} });
    });

    test('member add creates one key with the scopes the role allows and the workspace TTL', async () => {
      const ws = await workspace({ user_api_key_ttl: 7200 });
      const member = await makeUser(app, 'member');
      const manager = await makeUser(app, 'member');
      await addMember(ws.id, member.id, 'member');
      await addMember(ws.id, manager.id, 'manager');

      const memberKey = await theAutoKey(ws.id, member.id);
      assert.equal(memberKey.name, `auto: ${member.email}`);
      assert.equal(memberKey.type, 'workspace');
      assert.equal(memberKey.sub_type, 'user');
      // A workspace member may not hold api_keys.update: it is cut.
      assert.deepEqual([...(memberKey.scopes as string[])].sort(), ['completions.write', 'configs.read']);
      assert.equal(memberKey.expires_at, new Date(clock + 7200 * 1000).toISOString());

      const managerKey = await theAutoKey(ws.id, manager.id);
      assert.deepEqual([...(managerKey.scopes as string[])].sort(), [...AUTO_SCOPES].sort());

      const noTtl = await workspace();
      const other = await makeUser(app, 'member');
      await addMember(noTtl.id, other.id);
      assert.equal((await theAutoKey(noTtl.id, other.id)).expires_at, null);
    });

    test('no key when auto-create is off', async () => {
      await orgSettings({ user_api_key_auto_create: false });
      const ws = await workspace();
      const user = await makeUser(app, 'member');
      await addMember(ws.id, user.id);
      assert.deepEqual(await keysOf(ws.id, user.id), []);
    });

    test("the workspace's own setting overrides the organisation's; the default workspace has its own switch", async () => {
      await orgSettings({ user_api_key_auto_create: false });
      const on = await workspace({ user_api_key_auto_create: true });
      const first = await makeUser(app, 'member');
      await addMember(on.id, first.id);
      assert.equal((await activeAuto(on.id, first.id)).length, 1);

      await orgSettings({ user_api_key_auto_create: true });
      const off = await workspace({ user_api_key_auto_create: false });
      const second = await makeUser(app, 'member');
      await addMember(off.id, second.id);
      assert.deepEqual(await keysOf(off.id, second.id), []);

      // Org-wide on, but the default workspace's switch (false in beforeEach) decides there.
      const defaultWorkspace = app.boot.workspaceId;
      const third = await makeUser(app, 'member');
      await addMember(defaultWorkspace, third.id);
      assert.deepEqual(await keysOf(defaultWorkspace, third.id), []);
      await orgSettings({ default_workspace_user_api_key_auto_create: true });
      const fourth = await makeUser(app, 'member');
      await addMember(defaultWorkspace, fourth.id);
      assert.equal((await activeAuto(defaultWorkspace, fourth.id)).length, 1);
    });

    test('at most one active auto-created key per user and workspace', async () => {
      const ws = await workspace();
      const user = await makeUser(app, 'member');
      await addMember(ws.id, user.id);
      const key = await theAutoKey(ws.id, user.id);

      // Membership dropped behind the API's back (the key stays), then added again: no second key.
      await app.services.store.workspaceMembers.remove(ws.id, user.id);
      await addMember(ws.id, user.id);
      const stored = (await app.services.store.workspaces.get(app.boot.organisationId, ws.id))!;
      assert.equal(await autoCreateUserKey(app.services.store, stored, user, clock), undefined);
      const remaining = await activeAuto(ws.id, user.id);
      assert.deepEqual(
        remaining.map((k) => k.id),
        [key.id],
      );
    });

    test('an accepted invitation creates the key for each workspace it joins', async () => {
      const ws = await workspace();
      const invite = await app.http
        .post('/v1/admin/users/invites')
        .set(admin())
        .send({ email: `invited${++counter}@example.test`, role: 'member', workspaces: [{ workspace_id: ws.id, role: 'member' }] });
      assert.equal(invite.status, 201, JSON.stringify(invite.body));
      const accepted = await app.http.post('/v1/admin/users/invites/accept').send({ token: invite.body.token });
      assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
      const key = await theAutoKey(ws.id, accepted.body.id);
      assert.equal(key.name, `auto: ${invite.body.email}`);
    });

    test('the owner rotates to get the secret; the key uses the workspace default config; removal revokes it', async () => {
      const ws = await workspace();
      const config = async (slug: string, apiKey: string) => {
        const res = await app.http
          .post('/v1/configs')
          .set(admin())
          .send({ name: slug, slug, workspace_id: ws.id, config: { provider: 'openai', api_key: apiKey, custom_host: fake.url } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      };
      await config(`first-default-${counter}`, 'sk-first');
      await config(`second-default-${counter}`, 'sk-second');
      const first = await app.http.put(`/v1/workspaces/${ws.id}`).set(admin()).send({ defaults: { user_api_key_config: `first-default-${counter}` } });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // Another workspace's config cannot be a new workspace's default: its keys could never use it.
      const foreign = await app.http.post('/v1/workspaces').set(admin()).send({ name: `foreign ${counter}`, defaults: { user_api_key_config: `first-default-${counter}` } });
      assert.equal(foreign.status, 400, JSON.stringify(foreign.body));
      assert.equal(foreign.body.error.param, 'defaults.user_api_key_config');
      const user = await makeUser(app, 'member');
      const stranger = await makeUser(app, 'member');
      await addMember(ws.id, user.id);
      await addMember(ws.id, stranger.id);
      const auto = await theAutoKey(ws.id, user.id);

      // Neither key holds api_keys.update: only the owner may rotate, on the x-gw-own-key rule.
      const ownerKey = await keyFor(app, { userId: user.id, type: 'workspace', workspaceId: ws.id, scopes: ['configs.read'] });
      const strangerKey = await keyFor(app, { userId: stranger.id, type: 'workspace', workspaceId: ws.id, scopes: ['configs.read'] });
      const refused = await app.http.post(`/v1/api-keys/${auto.id}/rotate`).set({ 'x-gw-api-key': strangerKey }).send({});
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'missing_scope');
      const rotated = await app.http.post(`/v1/api-keys/${auto.id}/rotate`).set({ 'x-gw-api-key': ownerKey }).send({});
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const secret = rotated.body.key as string;
      assert.ok(secret);
      // Once claimed, the narrower key may not rotate it again: that would mint a broader secret.
      const again = await app.http.post(`/v1/api-keys/${auto.id}/rotate`).set({ 'x-gw-api-key': ownerKey }).send({});
      assert.equal(again.status, 403, JSON.stringify(again.body));
      assert.equal(again.body.error.code, 'missing_scope');

      const chat = (key: string) => app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': key }).send({ model: 'gpt-4o', messages });
      const served = await chat(secret);
      assert.equal(served.status, 200, JSON.stringify(served.body));
      assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-first');

      // A new default is in force on the next call (the gateway's memory copy is invalidated).
      const changed = await app.http.put(`/v1/workspaces/${ws.id}`).set(admin()).send({ defaults: { user_api_key_config: `second-default-${counter}` } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal((await chat(secret)).status, 200);
      assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-second');

      // The default is for user keys: a service key of the same workspace with no provider signal keeps the 400.
      const service = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'svc', workspace_id: ws.id, scopes: ['completions.write'] });
      const unserved = await chat(service.body.key);
      assert.equal(unserved.status, 400);
      assert.equal(unserved.body.error.code, 'provider_missing');

      const removed = await app.http.delete(`/v1/workspaces/${ws.id}/users/${user.id}`).set(admin());
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      const revoked = (await keysOf(ws.id, user.id)).find((key) => key.id === auto.id);
      assert.equal(revoked?.status, 'revoked');
      assert.equal((await chat(secret)).status, 401);
    });

    test('a user key in a workspace without a default config keeps the 400', async () => {
      const ws = await workspace();
      const user = await makeUser(app, 'member');
      await addMember(ws.id, user.id);
      const auto = await theAutoKey(ws.id, user.id);
      const ownerKey = await keyFor(app, { userId: user.id, type: 'workspace', workspaceId: ws.id, scopes: ['configs.read'] });
      const rotated = await app.http.post(`/v1/api-keys/${auto.id}/rotate`).set({ 'x-gw-api-key': ownerKey }).send({});
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const res = await app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': rotated.body.key }).send({ model: 'gpt-4o', messages });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'provider_missing');
    });
  });
}
