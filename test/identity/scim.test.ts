/**
 * SCIM 2.0 as identity providers speak it (the request shapes Okta and Microsoft Entra send),
 * SCIM tokens, group-to-workspace mappings with the role conflict rule, and what deactivation ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { keyFor } from '../admin/people.js';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';

const SCIM_JSON = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

for (const engine of storeEngines()) {
  describe(`SCIM provisioning (${engine.name})`, () => {
    let app: TestApp;
    let token: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const scim = () => ({ authorization: `Bearer ${token}`, 'content-type': SCIM_JSON, accept: SCIM_JSON });
    const send = (method: 'post' | 'put' | 'patch', path: string, body: unknown) => app.http[method](`/v1/scim/v2${path}`).set(scim()).send(JSON.stringify(body));
    const get = (path: string) => app.http.get(`/v1/scim/v2${path}`).set(scim());

    before(async () => {
      app = await startTestApp({ engine, env: { GW_PUBLIC_URL: 'https://gw.example.test' } });
      const created = await app.http.post('/v1/admin/scim/tokens').set(admin()).send({ name: 'Okta' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      token = created.body.token;
      assert.match(token, /^gwscim_/);
      assert.equal(created.body.scim_base_url, 'https://gw.example.test/v1/scim/v2');
      const listed = await app.http.get('/v1/admin/scim/tokens').set(admin());
      assert.equal(listed.body.data[0].token, undefined);
      assert.notEqual(listed.body.data[0].masked_token, token);
      const stored = await app.services.db('scim_tokens').first();
      assert.ok(!JSON.stringify(stored).includes(token), 'only the hash is stored');
    });
    after(() => app.close());

    test('discovery documents and the SCIM error body; other credentials are refused', async () => {
      const config = await get('/ServiceProviderConfig');
      assert.equal(config.status, 200);
      assert.match(config.headers['content-type']!, /^application\/scim\+json/);
      assert.equal(config.body.patch.supported, true);
      assert.equal(config.body.filter.supported, true);
      assert.deepEqual((await get('/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id), ['User', 'Group']);
      assert.deepEqual((await get('/Schemas')).body.Resources.map((r: { id: string }) => r.id), [USER, GROUP]);

      const anonymous = await app.http.get('/v1/scim/v2/Users');
      assert.equal(anonymous.status, 401);
      assert.deepEqual(anonymous.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
      assert.equal(anonymous.body.status, '401');
      const workspaceKey = await keyFor(app, { userId: null, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['workspaces.read'] });
      const wrongKey = await app.http.get('/v1/scim/v2/Users').set('authorization', `Bearer ${workspaceKey}`);
      assert.equal(wrongKey.status, 403);
      assert.equal(wrongKey.body.status, '403');
      // A SCIM token is no key for the rest of the API.
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${token}`)).status, 403);
      const missing = await get('/Users/00000000-0000-4000-8000-000000000000');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.status, '404');
    });

    test('Okta: look up by userName filter, create, PUT, path-less PATCH to deactivate, reactivate', async () => {
      const lookup = await get(`/Users?filter=${encodeURIComponent('userName eq "linus@corp.example"')}&startIndex=1&count=100`);
      assert.equal(lookup.status, 200);
      assert.deepEqual(lookup.body, { schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

      const created = await send('post', '/Users', {
        schemas: [USER],
        userName: 'Linus@corp.example',
        name: { givenName: 'Linus', familyName: 'T' },
        emails: [{ primary: true, value: 'linus@corp.example', type: 'work' }],
        displayName: 'Linus T',
        locale: 'en-US',
        externalId: '00u1okta',
        groups: [],
        password: 'ignored',
        active: true,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.userName, 'linus@corp.example');
      assert.equal(created.body.externalId, '00u1okta');
      assert.equal(created.body.active, true);
      assert.equal(created.headers.location, `https://gw.example.test/v1/scim/v2/Users/${created.body.id}`);
      const id = created.body.id;
      const dup = await send('post', '/Users', { schemas: [USER], userName: 'linus@corp.example' });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.scimType, 'uniqueness');

      const found = await get(`/Users?filter=${encodeURIComponent('userName eq "LINUS@corp.example"')}`);
      assert.equal(found.body.totalResults, 1);
      assert.equal(found.body.Resources[0].id, id);

      const replaced = await send('put', `/Users/${id}`, { ...created.body, name: { givenName: 'Linus', familyName: 'Torvalds' } });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.name.familyName, 'Torvalds');

      // The user signs in and holds a key; deactivation ends both.
      const userKey = await keyFor(app, { userId: id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['workspaces.list'] });
      await app.services.store.workspaceMembers.add({ organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId, user_id: id, role: 'member' }, new Date().toISOString());
      assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', userKey)).status, 200);
      const session = await app.services.store.sessions.create(
        { token_hash: 'a'.repeat(64), organisation_id: app.boot.organisationId, user_id: id, csrf_token: 'c', ip_address: null, user_agent: null, expires_at: '2999-01-01T00:00:00.000Z' },
        new Date().toISOString(),
      );

      const deactivated = await send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
      assert.equal(deactivated.status, 200, JSON.stringify(deactivated.body));
      assert.equal(deactivated.body.active, false);
      assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', userKey)).status, 401);
      assert.notEqual((await app.services.db('sessions').where({ id: session.id }).first()).revoked_at, null);
      const inactive = await get(`/Users?filter=${encodeURIComponent('active eq false')}`);
      assert.deepEqual(inactive.body.Resources.map((u: { id: string }) => u.id), [id]);

      // The admin users API keeps the deactivated user, marked inactive, with their keys revoked.
      const shown = await app.http.get(`/v1/admin/users/${id}`).set(admin());
      assert.equal(shown.status, 200, JSON.stringify(shown.body));
      assert.equal(shown.body.status, 'inactive');
      const listedIds = async (query: string) => ((await app.http.get(`/v1/admin/users${query}`).set(admin()).expect(200)).body.data as Array<{ id: string; status: string }>).map((u) => `${u.id}:${u.status}`);
      assert.ok((await listedIds('?limit=100')).includes(`${id}:inactive`));
      assert.deepEqual(await listedIds('?status=inactive'), [`${id}:inactive`]);
      assert.ok(!(await listedIds('?status=active&limit=100')).some((entry) => entry.startsWith(id)));
      assert.equal((await app.http.get('/v1/admin/users?status=removed').set(admin())).status, 400);
      const keys = await app.http.get('/v1/api-keys?limit=100').set(admin());
      const userKeys = (keys.body.data as Array<{ user_id: string | null; status: string }>).filter((key) => key.user_id === id);
      assert.ok(userKeys.length > 0);
      assert.deepEqual([...new Set(userKeys.map((key) => key.status))], ['revoked']);

      const reactivated = await send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
      assert.equal(reactivated.body.active, true);
      // Revoked keys stay revoked.
      assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', userKey)).status, 401);
    });

    test('deactivating a user ends their live session and API keys at once; so does deleting one', async () => {
      /** A provisioned member signed in (a session cookie) and holding a key, both in use (so cached) before the change. */
      const signedIn = async (email: string) => {
        const created = await send('post', '/Users', { schemas: [USER], userName: email, active: true });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = created.body.id as string;
        await app.services.store.workspaceMembers.add({ organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId, user_id: id, role: 'member' }, new Date().toISOString());
        const key = await keyFor(app, { userId: id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['workspaces.list'] });
        const token = newOpaqueToken(TOKEN_PREFIXES.session);
        await app.services.store.sessions.create(
          { token_hash: hashOpaqueToken(token), organisation_id: app.boot.organisationId, user_id: id, csrf_token: 'csrf', ip_address: null, user_agent: null, expires_at: '2999-01-01T00:00:00.000Z' },
          new Date().toISOString(),
        );
        const cookie = `gw_session=${token}`;
        const self = await app.http.get('/v1/auth/self').set('cookie', cookie);
        assert.equal(self.status, 200, JSON.stringify(self.body));
        assert.equal(self.body.user.email, email);
        assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', key)).status, 200);
        return { id, key, cookie };
      };
      const refused = async (user: { key: string; cookie: string }) => {
        const session = await app.http.get('/v1/auth/self').set('cookie', user.cookie);
        assert.equal(session.status, 401);
        assert.equal(session.body.error.code, 'invalid_session');
        assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', user.key)).status, 401);
      };

      const deactivated = await signedIn('dora@corp.example');
      const patched = await send('patch', `/Users/${deactivated.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await refused(deactivated);

      const deleted = await signedIn('dan@corp.example');
      assert.equal((await app.http.delete(`/v1/scim/v2/Users/${deleted.id}`).set(scim())).status, 204);
      await refused(deleted);
      const keys = await app.services.db('api_keys').where({ user_id: deleted.id });
      assert.ok(keys.length > 0 && keys.every((row: { status: string }) => row.status !== 'active'), JSON.stringify(keys.map((row: { status: string }) => row.status)));
    });

    test('Entra: capitalised ops, "False" strings and value paths; filters on externalId and with and/or; paging', async () => {
      const created = await send('post', '/Users', {
        schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
        externalId: 'entra-42',
        userName: 'margaret@corp.example',
        active: true,
        emails: [{ primary: true, type: 'work', value: 'margaret@corp.example' }],
        name: { formatted: 'Margaret H', familyName: 'H', givenName: 'Margaret' },
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Apollo' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id;
      const patched = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: 'name.familyName', value: 'Hamilton' },
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'margaret.hamilton@corp.example' },
          { op: 'Replace', path: 'userName', value: 'margaret.hamilton@corp.example' },
          { op: 'Replace', path: 'active', value: 'False' },
        ],
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.name.familyName, 'Hamilton');
      assert.equal(patched.body.userName, 'margaret.hamilton@corp.example');
      assert.equal(patched.body.active, false);

      const byExternal = await get(`/Users?filter=${encodeURIComponent('externalId eq "entra-42"')}`);
      assert.deepEqual(byExternal.body.Resources.map((u: { id: string }) => u.id), [id]);
      const combined = await get(`/Users?filter=${encodeURIComponent('(userName sw "margaret" and active eq false) or externalId eq "nobody"')}`);
      assert.deepEqual(combined.body.Resources.map((u: { id: string }) => u.id), [id]);
      const contains = await get(`/Users?filter=${encodeURIComponent('emails.value co "hamilton"')}`);
      assert.equal(contains.body.totalResults, 1);

      const bad = await get(`/Users?filter=${encodeURIComponent('userName eq')}`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.scimType, 'invalidFilter');
      const unsupported = await get(`/Users?filter=${encodeURIComponent('title eq "x"')}`);
      assert.equal(unsupported.body.scimType, 'invalidFilter');

      for (let i = 0; i < 3; i++) assert.equal((await send('post', '/Users', { schemas: [USER], userName: `page${i}@corp.example` })).status, 201);
      const all = await get('/Users');
      const page = await get('/Users?startIndex=2&count=2');
      assert.equal(page.body.totalResults, all.body.totalResults);
      assert.equal(page.body.startIndex, 2);
      assert.equal(page.body.itemsPerPage, 2);
      assert.deepEqual(page.body.Resources.map((u: { id: string }) => u.id), all.body.Resources.slice(1, 3).map((u: { id: string }) => u.id));
    });

    test('groups and mappings: members join the mapped workspaces with the role, leave with the group; role conflicts refused', async () => {
      const workspace = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Research' });
      const other = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Ops' });
      const alice = (await send('post', '/Users', { schemas: [USER], userName: 'alice@corp.example' })).body.id;
      const bob = (await send('post', '/Users', { schemas: [USER], userName: 'bob@corp.example' })).body.id;

      const group = await send('post', '/Groups', { schemas: [GROUP], displayName: 'Researchers', externalId: 'okta-g1', members: [{ value: alice, display: 'alice@corp.example' }] });
      assert.equal(group.status, 201, JSON.stringify(group.body));
      const groupId = group.body.id;
      assert.deepEqual(group.body.members.map((m: { value: string }) => m.value), [alice]);

      const mapping = await app.http.post('/v1/scim/workspaces').set(admin()).send({ workspace_id: workspace.body.slug, role: 'manager', scim_group_id: groupId });
      assert.equal(mapping.status, 201, JSON.stringify(mapping.body));
      assert.equal(mapping.body.scim_group, 'Researchers');
      const memberOf = async (userId: string) => (await app.services.store.workspaceMembers.forUser(userId)).map((m) => [m.workspace_id, m.role]);
      assert.deepEqual(await memberOf(alice), [[workspace.body.id, 'manager']]);

      const conflict = await app.http.post('/v1/scim/workspaces').set(admin()).send({ workspace_id: other.body.id, role: 'admin', scim_group_id: groupId });
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.error.code, 'scim_mapping_role_conflict');
      const second = await app.http.post('/v1/scim/workspaces').set(admin()).send({ workspace_id: other.body.id, role: 'manager', scim_group_id: groupId });
      assert.equal(second.status, 201);
      // By name: the group does not exist yet and is created.
      const byName = await app.http.post('/v1/scim/workspaces').set(admin()).send({ workspace_id: other.body.id, role: 'member', scim_group_name: 'Future group' });
      assert.equal(byName.status, 201);
      assert.equal(byName.body.scim_group, 'Future group');

      // Okta adds a member; Entra removes one with a value filter.
      const added = await send('patch', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: bob, display: 'bob@corp.example' }] }] });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.deepEqual((await memberOf(bob)).sort(), [[workspace.body.id, 'manager'], [other.body.id, 'manager']].sort());
      const byMember = await get(`/Groups?filter=${encodeURIComponent(`members[value eq "${bob}"]`)}`);
      assert.deepEqual(byMember.body.Resources.map((g: { id: string }) => g.id), [groupId]);
      const byDisplayName = await get(`/Groups?filter=${encodeURIComponent('displayName eq "researchers"')}&excludedAttributes=members`);
      assert.equal(byDisplayName.body.Resources[0].id, groupId);
      assert.deepEqual(byDisplayName.body.Resources[0].members, []);

      const removed = await send('patch', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: `members[value eq "${alice}"]` }] });
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.deepEqual(await memberOf(alice), []);
      const renamed = await send('patch', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Research team' } }] });
      assert.equal(renamed.body.displayName, 'Research team');
      assert.deepEqual((await get(`/Users/${bob}`)).body.groups.map((g: { display: string }) => g.display), ['Research team']);

      const mappings = await app.http.get('/v1/scim/workspaces').query({ page: 0, page_size: 2 }).set(admin());
      assert.equal(mappings.status, 200);
      assert.equal(mappings.body.total_count, 3);
      assert.equal(mappings.body.mappings.length, 2);
      const filtered = await app.http.get('/v1/scim/workspaces').query({ scim_group_id: groupId }).set(admin());
      assert.equal(filtered.body.total_count, 2);
      const groups = await app.http.get('/v1/scim/groups').query({ search: 'research', page: 0, page_size: 10 }).set(admin());
      assert.equal(groups.status, 200);
      assert.deepEqual(groups.body.groups.map((g: { display_name: string; members_count: number }) => [g.display_name, g.members_count]), [['Research team', 1]]);

      // Deleting a mapping ends the memberships it gave, and only those.
      const deleted = await app.http.delete(`/v1/scim/workspaces/${second.body.id}`).set(admin());
      assert.deepEqual(deleted.body, { success: true });
      assert.deepEqual(await memberOf(bob), [[workspace.body.id, 'manager']]);
      assert.equal((await app.http.get('/v1/scim/workspaces').query({ scim_group_id: groupId }).set(admin())).body.total_count, 1);

      // Deleting the user through SCIM removes them everywhere.
      assert.equal((await app.http.delete(`/v1/scim/v2/Users/${bob}`).set(scim())).status, 204);
      assert.equal((await get(`/Users/${bob}`)).status, 404);
      assert.deepEqual((await get(`/Groups/${groupId}`)).body.members, []);
      assert.equal((await app.http.delete(`/v1/scim/v2/Groups/${groupId}`).set(scim())).status, 204);
      assert.equal((await get(`/Groups/${groupId}`)).status, 404);
    });

    test('a revoked SCIM token stops at once', async () => {
      const created = await app.http.post('/v1/admin/scim/tokens').set(admin()).send({ name: 'Short-lived' });
      const headers = { authorization: `Bearer ${created.body.token}` };
      assert.equal((await app.http.get('/v1/scim/v2/Users').set(headers)).status, 200);
      assert.deepEqual((await app.http.delete(`/v1/admin/scim/tokens/${created.body.id}`).set(admin())).body, { success: true });
      assert.equal((await app.http.get('/v1/scim/v2/Users').set(headers)).status, 401);
    });
  });
}
