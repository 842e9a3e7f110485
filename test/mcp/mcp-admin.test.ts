import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeUser } from '../admin/people.js';

const HEADER_SECRET = 'mcp-header-secret-0123456789abcdef';
const CLIENT_SECRET = 'mcp-client-secret-zyxwvutsrqponml';

/** Names the tests use; anything else would be a real DNS lookup, which no test makes. */
const RESOLVER: Record<string, string[]> = { 'mcp.internal.example': ['10.1.2.3'], 'metadata.example': ['169.254.169.254'] };
const resolveHost = async (host: string) => {
  const answer = RESOLVER[host];
  if (!answer) throw new Error(`the test resolver does not know ${host}`);
  return answer;
};

for (const engine of fullEngines()) {
  describe(`MCP integrations and servers (${engine.name})`, () => {
    let app: TestApp;
    let upstream: FakeMcpServer;
    let second: FakeMcpServer;
    const bodies: string[] = [];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const call = async (method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown) => {
      const request = app.http[method](path).set(admin());
      const response = body === undefined ? await request : await request.send(body as object);
      bodies.push(JSON.stringify(response.body));
      return response;
    };

    before(async () => {
      upstream = await startFakeMcpServer({ name: 'fake-mcp' });
      second = await startFakeMcpServer({ name: 'second-mcp', stateless: true });
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, resolveHost });
    });
    after(async () => {
      for (const secret of [HEADER_SECRET, CLIENT_SECRET]) assert.ok(!bodies.some((b) => b.includes(secret)), `${secret} leaked in a response`);
      await app.close();
      await upstream.close();
      await second.close();
    });

    let integrationId: string;

    test('create: capabilities synced with the SDK, header values encrypted at rest and masked', async () => {
      const created = await call('post', '/v1/mcp-integrations', {
        name: 'Fake Tools',
        url: upstream.url,
        transport: 'http',
        auth_type: 'headers',
        configurations: { custom_headers: { 'x-upstream-key': HEADER_SECRET } },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      integrationId = created.body.id;
      assert.equal(created.body.slug, 'fake-tools');
      assert.equal(created.body.type, 'organisation');
      assert.equal(created.body.sync_status, 'synced');
      assert.equal(created.body.configurations.custom_headers['x-upstream-key'], 'mcp-********cdef');
      // The server saw the real header value.
      assert.ok(upstream.requests.some((headers) => headers['x-upstream-key'] === HEADER_SECRET));
      const row = await app.services.db('mcp_integrations').where({ id: integrationId }).first();
      assert.ok(!JSON.stringify(row).includes(HEADER_SECRET), 'the row holds the secret in clear');
      assert.match(row.secrets, /^v1:/);

      const capabilities = await call('get', `/v1/mcp-integrations/${integrationId}/capabilities`);
      assert.equal(capabilities.status, 200);
      const names = capabilities.body.data.map((c: { type: string; name: string }) => `${c.type}:${c.name}`).sort();
      assert.deepEqual(names, ['prompt:greeting', 'resource:info://about', 'resource_template:doc://{id}', 'tool:add', 'tool:delete_everything', 'tool:echo', 'tool:fail', 'tool:slow']);
      assert.deepEqual(capabilities.body.counts.tools, { total: 5, enabled: 5 });
      const add = capabilities.body.data.find((c: { name: string }) => c.name === 'add');
      assert.equal(add.description, 'Adds two numbers');
      assert.deepEqual(Object.keys(add.input_schema.properties).sort(), ['a', 'b']);
      const tools = await call('get', `/v1/mcp-integrations/${integrationId}/capabilities?type=prompt`);
      assert.deepEqual(tools.body.data.map((c: { name: string }) => c.name), ['greeting']);

      const metadata = await call('get', `/v1/mcp-integrations/fake-tools/metadata`);
      assert.equal(metadata.body.server_name, 'fake-mcp');
      assert.equal(metadata.body.server_version, '1.2.3');
      assert.ok(metadata.body.protocol_version);
      assert.equal(metadata.body.sync_status, 'synced');
      assert.ok(metadata.body.capability_flags.tools);
    });

    test('list, get by slug, masked value sent back keeps the secret', async () => {
      const list = await call('get', '/v1/mcp-integrations?search=fake');
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((i: { id: string }) => i.id === integrationId));
      const masked = (await call('get', '/v1/mcp-integrations/fake-tools')).body.configurations;
      const updated = await call('put', `/v1/mcp-integrations/${integrationId}`, { configurations: masked, description: 'kept' });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.description, 'kept');
      const row = await app.services.db('mcp_integrations').where({ id: integrationId }).first();
      assert.ok(app.services.secrets.open(row.secrets).includes(HEADER_SECRET));
    });

    test('capabilities: disable one; an unknown one is refused naming the entry', async () => {
      const put = await call('put', `/v1/mcp-integrations/${integrationId}/capabilities`, { capabilities: [{ name: 'delete_everything', type: 'tool', enabled: false }] });
      assert.equal(put.status, 200);
      const list = await call('get', `/v1/mcp-integrations/${integrationId}/capabilities?type=tool`);
      assert.equal(list.body.data.find((c: { name: string }) => c.name === 'delete_everything').enabled, false);
      assert.deepEqual(list.body.counts.tools, { total: 5, enabled: 4 });
      const unknown = await call('put', `/v1/mcp-integrations/${integrationId}/capabilities`, { capabilities: [{ name: 'add', type: 'tool', enabled: true }, { name: 'nope', type: 'tool', enabled: false }] });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'unknown_capability');
      assert.equal(unknown.body.error.param, 'capabilities[1].name');
    });

    test('workspaces: enable per workspace and global access', async () => {
      const put = await call('put', `/v1/mcp-integrations/${integrationId}/workspaces`, { workspaces: [{ id: 'default', enabled: true }] });
      assert.equal(put.status, 200);
      assert.equal(put.body.total, 1);
      assert.equal(put.body.data[0].id, app.boot.workspaceId);
      assert.equal(put.body.data[0].enabled, true);
      assert.equal(put.body.global_workspace_access.enabled, false);
      const global = await call('put', `/v1/mcp-integrations/${integrationId}/workspaces`, { workspaces: [], global_workspace_access: { enabled: true } });
      assert.equal(global.body.global_workspace_access.enabled, true);
      assert.equal(global.body.total, 1, 'workspaces not listed keep their entry without override_existing_workspace_access');
      const unknown = await call('put', `/v1/mcp-integrations/${integrationId}/workspaces`, { workspaces: [{ id: 'nowhere', enabled: true }] });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'workspaces[0].id');
    });

    test('oauth_client_credentials: the client secret is masked; missing fields are named', async () => {
      const missing = await call('post', '/v1/mcp-integrations', { name: 'oauth', url: upstream.url, transport: 'http', auth_type: 'oauth_client_credentials', configurations: { client_id: 'c' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'configurations.client_secret');
    });

    test('update of the URL syncs again; on-demand sync records a failure without losing the integration', async () => {
      const other = await call('post', '/v1/mcp-integrations', { name: 'Movable', url: upstream.url, transport: 'http', auth_type: 'none' });
      assert.equal(other.body.sync_status, 'synced');
      const moved = await call('put', `/v1/mcp-integrations/${other.body.id}`, { url: second.url });
      assert.equal(moved.status, 200);
      assert.equal((await call('get', `/v1/mcp-integrations/${other.body.id}/metadata`)).body.server_name, 'second-mcp');

      const gone = await startFakeMcpServer({ name: 'short-lived' });
      const created = await call('post', '/v1/mcp-integrations', { name: 'Short', url: gone.url, transport: 'http', auth_type: 'none' });
      assert.equal(created.body.sync_status, 'synced');
      await gone.close();
      const sync = await call('post', `/v1/mcp-integrations/${created.body.id}/sync`);
      assert.equal(sync.status, 200);
      assert.equal(sync.body.sync_status, 'failed');
      assert.ok(sync.body.sync_error);
      assert.equal(sync.body.server_name, 'short-lived', 'what the last good sync learnt is kept');
      // The capabilities of the last good sync are still there.
      assert.ok((await call('get', `/v1/mcp-integrations/${created.body.id}/capabilities`)).body.total > 0);
    });

    test('private, loopback, link-local and metadata URLs are refused before any connection', async () => {
      const before = (await app.services.db('mcp_integrations').count({ n: '*' }).first()) as { n: number | string };
      for (const url of [
        'http://127.0.0.2/mcp',
        'http://2130706434/mcp',
        'http://0x7f000002/mcp',
        'http://[::1]/mcp',
        'http://localhost/mcp',
        'http://169.254.169.254/latest',
        'http://mcp.internal.example/mcp',
        'http://metadata.example/mcp',
      ]) {
        const response = await call('post', '/v1/mcp-integrations', { name: 'private', url, transport: 'http', auth_type: 'none' });
        assert.equal(response.status, 400, url);
        assert.equal(response.body.error.code, 'unsafe_mcp_url', url);
        assert.equal(response.body.error.param, 'url');
      }
      const refusedUpdate = await call('put', `/v1/mcp-integrations/${integrationId}`, { url: 'http://mcp.internal.example/mcp' });
      assert.equal(refusedUpdate.status, 400);
      const after = (await app.services.db('mcp_integrations').count({ n: '*' }).first()) as { n: number | string };
      assert.equal(Number(after.n), Number(before.n));
      assert.equal((await call('get', `/v1/mcp-integrations/${integrationId}`)).body.url, upstream.url);
    });

    test('servers: create, list with the gateway URL, test, narrowed capabilities, user access, delete', async () => {
      const created = await call('post', '/v1/mcp-servers', { name: 'Team tools', mcp_integration_id: 'fake-tools', slug: 'team-tools' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.url, `${app.services.config.publicUrl}/team-tools/mcp`);
      assert.equal(created.body.mcp_integration_slug, 'fake-tools');
      assert.equal(created.body.workspace_id, app.boot.workspaceId);
      const duplicate = await call('post', '/v1/mcp-servers', { name: 'again', mcp_integration_id: 'fake-tools', slug: 'team-tools' });
      assert.equal(duplicate.status, 409);

      const list = await call('get', '/v1/mcp-servers');
      assert.ok(list.body.data.some((s: { slug: string; url: string }) => s.slug === 'team-tools' && s.url.endsWith('/team-tools/mcp')));
      assert.equal((await call('get', '/v1/mcp-servers/team-tools')).body.id, created.body.id);

      const tested = await call('post', `/v1/mcp-servers/${created.body.id}/test`);
      assert.equal(tested.status, 200);
      assert.equal(tested.body.success, true);
      assert.equal(tested.body.server_name, 'fake-mcp');
      assert.equal(typeof tested.body.response_time_ms, 'number');

      const narrowed = await call('put', `/v1/mcp-servers/${created.body.id}/capabilities`, { capabilities: [{ name: 'echo', type: 'tool', enabled: false }, { name: 'delete_everything', type: 'tool', enabled: true }] });
      assert.equal(narrowed.status, 200);
      const caps = await call('get', `/v1/mcp-servers/${created.body.id}/capabilities?type=tool`);
      const byName = Object.fromEntries(caps.body.data.map((c: { name: string; enabled: boolean; integration_enabled: boolean }) => [c.name, c]));
      assert.equal(byName.echo.enabled, false);
      assert.equal(byName.echo.integration_enabled, true);
      assert.equal(byName.delete_everything.enabled, false, 'a server cannot turn on what the integration turns off');
      assert.equal(byName.add.enabled, true);

      const member = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const access = await call('put', `/v1/mcp-servers/${created.body.id}/user-access`, { user_access: [{ user_id: member.id, enabled: false }], default_user_access: 'deny' });
      assert.equal(access.status, 200, JSON.stringify(access.body));
      const readAccess = await call('get', `/v1/mcp-servers/${created.body.id}/user-access`);
      assert.equal(readAccess.body.default_user_access, 'deny');
      const owner = readAccess.body.data.find((u: { user_id: string }) => u.user_id === member.id);
      assert.deepEqual([owner.enabled, owner.has_override, owner.connection_status], [false, true, 'not_connected']);
      const badUser = await call('put', `/v1/mcp-servers/${created.body.id}/user-access`, { user_access: [{ user_id: 'nobody', enabled: true }] });
      assert.equal(badUser.status, 400);
      assert.equal(badUser.body.error.param, 'user_access[0].user_id');

      const connections = await call('get', `/v1/mcp-servers/${created.body.id}/connections`);
      assert.deepEqual(connections.body, { data: [], total: 0, has_more: false });

      const inUse = await call('delete', `/v1/mcp-integrations/${integrationId}`);
      assert.equal(inUse.status, 409);
      assert.equal((await call('delete', `/v1/mcp-servers/${created.body.id}`)).status, 200);
      assert.equal((await call('get', `/v1/mcp-servers/${created.body.id}`)).status, 404);
    });

    test('a workspace key sees only integrations its workspace may use, and cannot change organisation ones', async () => {
      const ws = await call('post', '/v1/workspaces', { name: 'Other team' });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      const key = await call('post', '/v1/api-keys/workspace/service', { name: 'other', workspace_id: ws.body.id, scopes: ['mcp_integrations.list', 'mcp_integrations.read', 'mcp_integrations.create', 'mcp_integrations.update', 'mcp_servers.create'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const headers = { 'x-gw-api-key': key.body.key as string };
      const orgOnly = await call('post', '/v1/mcp-integrations', { name: 'Org only', url: upstream.url, transport: 'http', auth_type: 'none' });
      assert.equal((await app.http.get(`/v1/mcp-integrations/${orgOnly.body.id}`).set(headers)).status, 404);
      const own = await app.http.post('/v1/mcp-integrations').set(headers).send({ name: 'Own', url: upstream.url, transport: 'http', auth_type: 'none' });
      assert.equal(own.status, 201);
      assert.equal(own.body.type, 'workspace');
      assert.equal(own.body.workspace_id, ws.body.id);
      const listed = await app.http.get('/v1/mcp-integrations').set(headers);
      assert.ok(listed.body.data.some((i: { id: string }) => i.id === own.body.id));
      assert.ok(!listed.body.data.some((i: { id: string }) => i.id === orgOnly.body.id));
      // The global integration from the earlier test is visible but not writable.
      assert.equal((await app.http.get(`/v1/mcp-integrations/${integrationId}`).set(headers)).status, 200);
      assert.equal((await app.http.put(`/v1/mcp-integrations/${integrationId}`).set(headers).send({ description: 'x' })).status, 403);
      const server = await app.http.post('/v1/mcp-servers').set(headers).send({ name: 'Not allowed', mcp_integration_id: orgOnly.body.id });
      assert.equal(server.status, 400);
      assert.equal(server.body.error.param, 'mcp_integration_id');
    });
  });
}
