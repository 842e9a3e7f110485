import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { keyFor, makeUser } from '../admin/people.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startFakeTokenEndpoints } from '../helpers/fake-token-endpoints.js';
import { startTestApp, startTestCluster, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, gwClient, workspaceKey } from './mcp-fixtures.js';
import { assertEndpointRolledUp } from '../logs/rollup-check.js';

const textOf = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content) ?? []).map((part) => part.text ?? '').join('');
const resourceText = (result: { contents: unknown[] }) => (result.contents[0] as { text?: string }).text;

for (const engine of fullEngines()) {
  describe(`the MCP gateway (${engine.name})`, () => {
    let app: TestApp;
    let upstream: FakeMcpServer;
    let key: string;

    before(async () => {
      upstream = await startFakeMcpServer({ name: 'fake-mcp' });
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      await addMcpServer(app, { url: upstream.url, slug: 'tools', disabledTools: ['delete_everything'] });
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await upstream.close();
    });

    test('the SDK client lists only enabled tools and calls them through gw', async () => {
      const { client } = await gwClient(app.url, 'tools', { 'x-gw-api-key': key });
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['add', 'echo', 'fail', 'slow']);
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.equal(textOf(sum), '5');
      assert.deepEqual(upstream.toolCalls.at(-1), { name: 'add', args: { a: 2, b: 3 } });
      const failed = await client.callTool({ name: 'fail', arguments: {} });
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /the tool broke/);
      await client.close();
    });

    test('a disabled or unknown tool gets a JSON-RPC error and never reaches the upstream', async () => {
      const { client } = await gwClient(app.url, 'tools', { authorization: `Bearer ${key}` });
      const calls = upstream.toolCalls.length;
      await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        assert.match(error.message, /disabled on MCP server tools/);
        return true;
      });
      await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool: nope/);
      assert.equal(upstream.toolCalls.length, calls);
      await client.close();
    });

    test('prompts and resources pass through, narrowed to what is enabled', async () => {
      const { client } = await gwClient(app.url, 'tools', { 'x-gw-api-key': key });
      assert.deepEqual((await client.listPrompts()).prompts.map((prompt) => prompt.name), ['greeting']);
      const prompt = await client.getPrompt({ name: 'greeting', arguments: { who: 'Ann' } });
      assert.equal((prompt.messages[0]!.content as { text: string }).text, 'Hello Ann');
      assert.deepEqual((await client.listResources()).resources.map((resource) => resource.uri), ['info://about']);
      assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate), ['doc://{id}']);
      assert.equal(resourceText(await client.readResource({ uri: 'info://about' })), 'about fake-mcp');
      assert.equal(resourceText(await client.readResource({ uri: 'doc://7' })), 'document 7');
      await assert.rejects(client.readResource({ uri: 'other://x' }), /Resource other:\/\/x is not enabled/);

      const off = await app.http.put('/v1/mcp-servers/tools/capabilities').set({ 'x-gw-api-key': app.adminKey }).send({ capabilities: [{ name: 'greeting', type: 'prompt', enabled: false }] });
      assert.equal(off.status, 200);
      assert.deepEqual((await client.listPrompts()).prompts, []);
      await assert.rejects(client.getPrompt({ name: 'greeting', arguments: { who: 'Ann' } }), /Prompt greeting is not enabled/);
      await client.close();
    });

    test('401 carries the resource metadata challenge; the metadata names the server', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
      const anonymous = await app.http.post('/tools/mcp').set('accept', 'application/json, text/event-stream').send(initialize);
      assert.equal(anonymous.status, 401);
      const metadataUrl = `${app.services.config.publicUrl}/.well-known/oauth-protected-resource/tools/mcp`;
      assert.equal(anonymous.headers['www-authenticate'], `Bearer resource_metadata="${metadataUrl}"`);
      const wrong = await app.http.post('/tools/mcp').set({ authorization: 'Bearer not-a-key', accept: 'application/json, text/event-stream' }).send(initialize);
      assert.equal(wrong.status, 401);
      assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
      const metadata = await app.http.get('/.well-known/oauth-protected-resource/tools/mcp');
      assert.equal(metadata.status, 200);
      assert.equal(metadata.body.resource, `${app.services.config.publicUrl}/tools/mcp`);
      assert.deepEqual(metadata.body.authorization_servers, [app.services.config.publicUrl]);
      assert.deepEqual(metadata.body.scopes_supported, ['mcp.invoke']);

      const noScope = await workspaceKey(app, ['logs.list']);
      const forbidden = await app.http.post('/tools/mcp').set({ 'x-gw-api-key': noScope, accept: 'application/json, text/event-stream' }).send(initialize);
      assert.equal(forbidden.status, 403);
      assert.match(String(forbidden.headers['www-authenticate']), /error="insufficient_scope"/);
      assert.equal((await app.http.post('/nowhere/mcp').set({ 'x-gw-api-key': key, accept: 'application/json, text/event-stream' }).send(initialize)).status, 404);
    });

    test('user access: a user turned off (or the default deny) is refused', async () => {
      const member = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const memberKey = await keyFor(app, { userId: member.id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['mcp.invoke'] });
      const headers = { 'x-gw-api-key': memberKey };
      const connected = await gwClient(app.url, 'tools', headers);
      await connected.client.close();
      const admin = { 'x-gw-api-key': app.adminKey };
      await app.http.put('/v1/mcp-servers/tools/user-access').set(admin).send({ user_access: [{ user_id: member.id, enabled: false }] });
      await assert.rejects(gwClient(app.url, 'tools', headers), /403|mcp_user_access_denied|access to MCP server/);
      await app.http.put('/v1/mcp-servers/tools/user-access').set(admin).send({ user_access: [{ user_id: member.id, enabled: true }], default_user_access: 'deny' });
      await (await gwClient(app.url, 'tools', headers)).client.close();
      const other = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const otherKey = await keyFor(app, { userId: other.id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['mcp.invoke'] });
      await assert.rejects(gwClient(app.url, 'tools', { 'x-gw-api-key': otherKey }), /403|access to MCP server/);
      await app.http.put('/v1/mcp-servers/tools/user-access').set(admin).send({ default_user_access: 'allow' });
    });

    test('connections: a session shows up once opened; DELETE ends it, so the next call needs a new session', async () => {
      const admin = { 'x-gw-api-key': app.adminKey };
      const member = await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' });
      const memberKey = await keyFor(app, { userId: member.id, type: 'workspace', workspaceId: app.boot.workspaceId, scopes: ['mcp.invoke'] });
      const { client, transport } = await gwClient(app.url, 'tools', { 'x-gw-api-key': memberKey });
      const service = await gwClient(app.url, 'tools', { 'x-gw-api-key': key });

      const mine = await app.http.get('/v1/mcp-servers/tools/connections').query({ user_id: member.id }).set(admin);
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      assert.equal(mine.body.total, 1);
      assert.equal(mine.body.data[0].session_id, transport.sessionId);
      assert.equal(mine.body.data[0].user_id, member.id);
      assert.equal(mine.body.data[0].connected, true);
      const all = await app.http.get('/v1/mcp-servers/tools/connections').set(admin);
      assert.ok(all.body.data.some((row: { session_id: string }) => row.session_id === service.transport.sessionId));

      const dropped = await app.http.delete('/v1/mcp-servers/tools/connections').query({ user_id: member.id }).set(admin);
      assert.deepEqual(dropped.body, { success: true });
      assert.equal((await app.http.get('/v1/mcp-servers/tools/connections').query({ user_id: member.id }).set(admin)).body.total, 0);
      await assert.rejects(client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }), /404|Session not found/);
      // Another user's session is untouched; the member opens a new one.
      assert.equal(textOf(await service.client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })), '4');
      const again = await gwClient(app.url, 'tools', { 'x-gw-api-key': memberKey });
      assert.equal(textOf(await again.client.callTool({ name: 'add', arguments: { a: 3, b: 3 } })), '6');
      await Promise.all([client.close(), service.client.close(), again.client.close()]);
    });

    test('an OAuth access token gw issued, with mcp.invoke, is accepted like a key', async () => {
      const user = await makeUser(app, 'owner');
      const at = new Date(app.services.now()).toISOString();
      const client = await app.services.store.oauth.createClient(
        { client_name: 'mcp client', redirect_uris: ['http://127.0.0.1:1/cb'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none', secret_hash: null, scope: 'mcp.invoke', metadata: {} },
        at,
      );
      const token = newOpaqueToken(TOKEN_PREFIXES.oauthAccess);
      await app.services.store.oauth.createToken(
        { token_hash: hashOpaqueToken(token), kind: 'access', family_id: randomUUID(), client_id: client.id, organisation_id: app.boot.organisationId, user_id: user.id, scope: 'mcp.invoke', resource: null, expires_at: new Date(app.services.now() + 600_000).toISOString() },
        at,
      );
      const { client: mcp } = await gwClient(app.url, 'tools', { authorization: `Bearer ${token}` });
      assert.equal(textOf(await mcp.callTool({ name: 'add', arguments: { a: 40, b: 2 } })), '42');
      await mcp.close();
    });

    test('every tool call is logged with endpoint mcp and shows in logs and analytics', async () => {
      const { client } = await gwClient(app.url, 'tools', { 'x-gw-api-key': key });
      await client.callTool({ name: 'echo', arguments: { text: 'logged please' } });
      await client.callTool({ name: 'delete_everything', arguments: {} }).catch(() => undefined);
      await client.close();
      await app.services.requestLogs.flush();
      await assertEndpointRolledUp(app.services.db, 'mcp', 'tool calls');
      const logs = await app.http.get('/v1/logs?endpoint=mcp&limit=100').set({ 'x-gw-api-key': app.adminKey });
      assert.equal(logs.status, 200, JSON.stringify(logs.body));
      const echo = logs.body.data.find((log: { model: string }) => log.model === 'echo');
      assert.ok(echo, 'the echo call is logged');
      assert.equal(echo.endpoint, 'mcp');
      assert.equal(echo.provider, 'mcp:tools');
      assert.equal(echo.status, 200);
      assert.equal(echo.metadata.mcp_server, 'tools');
      assert.equal(echo.metadata.mcp_tool, 'echo');
      assert.ok(Number(echo.metadata.mcp_request_bytes) > 0);
      assert.ok(Number(echo.metadata.mcp_response_bytes) > 0);
      const refused = logs.body.data.find((log: { model: string }) => log.model === 'delete_everything');
      assert.equal(refused.status, 400);
      assert.equal(refused.error.code, 'mcp_tool_not_enabled');
      const analytics = await app.http.get('/v1/analytics/groups/endpoint').set({ 'x-gw-api-key': app.adminKey });
      assert.equal(analytics.status, 200, JSON.stringify(analytics.body));
      assert.ok(JSON.stringify(analytics.body).includes('"mcp"'), JSON.stringify(analytics.body));
    });

    test('the tool-call log row holds server, tool, caller, status, latency and sizes; analytics count the calls', async () => {
      await addMcpServer(app, { url: upstream.url, slug: 'counted', disabledTools: ['delete_everything'] });
      const keyId = (await app.http.get('/v1/auth/key').set({ 'x-gw-api-key': key })).body.api_key.id as string;
      const { client } = await gwClient(app.url, 'counted', { 'x-gw-api-key': key });
      await client.callTool({ name: 'echo', arguments: { text: 'count me' } });
      await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      await client.callTool({ name: 'add', arguments: { a: 3, b: 4 } });
      await client.callTool({ name: 'delete_everything', arguments: {} }).catch(() => undefined);
      await client.close();
      await app.services.requestLogs.flush();
      const admin = { 'x-gw-api-key': app.adminKey };

      const listed = await app.http.get('/v1/logs').query({ provider: 'mcp:counted', model: 'echo' }).set(admin);
      assert.equal(listed.body.data.length, 1);
      const row = (await app.http.get(`/v1/logs/${listed.body.data[0].id}`).set(admin)).body;
      assert.equal(row.endpoint, 'mcp');
      assert.equal(row.provider, 'mcp:counted');
      assert.equal(row.metadata.mcp_server, 'counted');
      assert.equal(row.model, 'echo');
      assert.equal(row.metadata.mcp_tool, 'echo');
      assert.equal(row.api_key_id, keyId, 'the caller');
      assert.equal(row.status, 200);
      assert.equal(typeof row.latency_ms, 'number');
      assert.ok(row.latency_ms >= 0);
      assert.deepEqual(row.request_body, { name: 'echo', arguments: { text: 'count me' } });
      assert.equal(Number(row.metadata.mcp_request_bytes), Buffer.byteLength(JSON.stringify(row.request_body)));
      assert.equal(Number(row.metadata.mcp_response_bytes), Buffer.byteLength(JSON.stringify(row.response_body)));
      assert.equal(row.guardrail_results, null, 'no guardrail mapped here (verdicts: mcp-guardrail-checks.test.ts)');

      const summary = await app.http.get('/v1/analytics/summary').query({ provider: 'mcp:counted' }).set(admin);
      assert.equal(summary.status, 200, JSON.stringify(summary.body));
      assert.equal(summary.body.requests, 4);
      assert.equal(summary.body.errors, 1, 'the refused disabled tool');
      assert.ok(summary.body.latency_p50_ms !== null);
      const byTool = await app.http.get('/v1/analytics/groups/model').query({ provider: 'mcp:counted' }).set(admin);
      assert.equal(byTool.status, 200, JSON.stringify(byTool.body));
      const requestsOf = (tool: string) => byTool.body.data.find((group: { key?: string; value?: string }) => (group.key ?? group.value) === tool)?.requests;
      assert.deepEqual([requestsOf('echo'), requestsOf('add'), requestsOf('delete_everything')], [1, 2, 1], JSON.stringify(byTool.body.data));
      const byEndpoint = await app.http.get('/v1/analytics/groups/endpoint').query({ api_key_id: keyId }).set(admin);
      const mcpGroup = byEndpoint.body.data.find((group: { key?: string; value?: string }) => (group.key ?? group.value) === 'mcp');
      assert.ok(mcpGroup && mcpGroup.requests >= 4, JSON.stringify(byEndpoint.body.data));
    });

    test('an integration over the older HTTP+SSE transport is served through gw over Streamable HTTP', async () => {
      const sse = await startFakeMcpServer({ name: 'sse-mcp', sse: true });
      try {
        const { integrationId } = await addMcpServer(app, { url: sse.url, slug: 'sse-tools', transport: 'sse', disabledTools: ['delete_everything'] });
        const metadata = await app.http.get(`/v1/mcp-integrations/${integrationId}/metadata`).set({ 'x-gw-api-key': app.adminKey });
        assert.equal(metadata.body.server_name, 'sse-mcp', JSON.stringify(metadata.body));
        const { client } = await gwClient(app.url, 'sse-tools', { 'x-gw-api-key': key });
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ['add', 'echo', 'fail', 'slow']);
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'over sse' } })), 'over sse');
        assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 5, b: 6 } })), '11');
        assert.deepEqual(sse.toolCalls, [{ name: 'echo', args: { text: 'over sse' } }, { name: 'add', args: { a: 5, b: 6 } }]);
        // The SSE stream was opened with GET and the requests posted to the endpoint it announced.
        assert.ok(sse.requests.some((headers) => String(headers.accept).includes('text/event-stream')));
        await client.close();
      } finally {
        await sse.close();
      }
    });

    test('oauth_client_credentials: the token is sent, and refetched when the MCP server answers 401', async () => {
      const tokens = await startFakeTokenEndpoints();
      const revoked = new Set<string>();
      const live = (headers: { authorization?: string }) => {
        const token = headers.authorization?.replace(/^Bearer /, '') ?? '';
        return tokens.issued.oauth.includes(token) && !revoked.has(token);
      };
      const guarded = await startFakeMcpServer({ name: 'guarded', authorize: live });
      try {
        const configurations = { token_url: `${tokens.url}/oauth/token`, client_id: tokens.oauthClient.id, client_secret: tokens.oauthClient.secret };
        await addMcpServer(app, { url: guarded.url, slug: 'guarded', auth: { auth_type: 'oauth_client_credentials', configurations } });
        assert.equal(tokens.issued.oauth.length, 1, 'one token served the capability sync');
        const { client } = await gwClient(app.url, 'guarded', { 'x-gw-api-key': key });
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'first' } })), 'first');
        assert.equal(tokens.issued.oauth.length, 1, 'the cached token is reused');

        // The MCP server stops accepting the token mid-session: gw fetches a new one and the call goes through.
        revoked.add(tokens.issued.oauth[0]!);
        const seen = guarded.requests.length;
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'second' } })), 'second');
        assert.equal(tokens.issued.oauth.length, 2);
        assert.equal(guarded.requests.at(-1)!.authorization, `Bearer ${tokens.issued.oauth[1]}`);
        const authorizations = guarded.requests.slice(seen).map((headers) => headers.authorization);
        assert.deepEqual(authorizations, [`Bearer ${tokens.issued.oauth[0]}`, `Bearer ${tokens.issued.oauth[1]}`], 'refused once, then retried with the new token');
        assert.deepEqual(guarded.toolCalls.map((call) => call.args), [{ text: 'first' }, { text: 'second' }]);
        await client.close();
      } finally {
        await guarded.close();
        await tokens.close();
      }
    });

    test('invalid params answer -32602 Invalid params and a message naming the field; a message that is not JSON-RPC answers -32600', async () => {
      const headers = { 'x-gw-api-key': key, accept: 'application/json, text/event-stream' };
      const initialize = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
      const upstreamRequests = upstream.requests.length;
      const badInit = await app.http.post('/tools/mcp').set(headers).send(initialize({ protocolVersion: 7, capabilities: {} }));
      assert.equal(badInit.status, 200);
      assert.deepEqual(badInit.body, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params for initialize: params.protocolVersion: expected string, received number (and 1 more)' } });
      assert.equal(upstream.requests.length, upstreamRequests, 'a refused initialize never reaches the MCP server');

      const init = await app.http.post('/tools/mcp').set(headers).send(initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
      assert.equal(init.status, 200);
      const session = { ...headers, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      const invalidParams: Array<[unknown, string]> = [
        [{ method: 'tools/call', params: { name: 123 } }, 'Invalid params for tools/call: params.name: expected string, received number'],
        [{ method: 'tools/call', params: {} }, 'Invalid params for tools/call: params.name: expected string, received undefined'],
        [{ method: 'tools/list', params: { cursor: 5 } }, 'Invalid params for tools/list: params.cursor: expected string, received number'],
        [{ method: 'resources/read', params: { uri: 5 } }, 'Invalid params for resources/read: params.uri: expected string, received number'],
        [{ method: 'prompts/get', params: { name: 'greeting', arguments: { who: 5 } } }, 'Invalid params for prompts/get: params.arguments.who: expected string, received number'],
      ];
      let id = 10;
      for (const [request, message] of invalidParams) {
        const sent = { jsonrpc: '2.0', id: ++id, ...(request as object) };
        const answer = await app.http.post('/tools/mcp').set(session).send(sent);
        assert.equal(answer.status, 200, JSON.stringify(sent));
        assert.deepEqual(answer.body, { jsonrpc: '2.0', id, error: { code: -32602, message } }, JSON.stringify(sent));
      }
      assert.equal(upstream.toolCalls.filter((call) => typeof call.name !== 'string').length, 0);

      const invalidRequests: unknown[] = [{ jsonrpc: '2.0', id: 30 }, { jsonrpc: '1.0', id: 31, method: 'tools/list' }, { id: 32, method: 'tools/list' }, { jsonrpc: '2.0', id: 33, method: 7 }, [{ jsonrpc: '2.0', id: 34, method: 'tools/list' }, 5], []];
      for (const sent of invalidRequests) {
        const answer = await app.http.post('/tools/mcp').set(session).send(sent as object);
        assert.equal(answer.status, 400, JSON.stringify(sent));
        assert.equal(answer.body.jsonrpc, '2.0');
        assert.equal(answer.body.error.code, -32600, JSON.stringify(sent));
        assert.match(answer.body.error.message, /^Invalid Request: /);
      }
      // The SDK client reads the error as the MCP error it is.
      const { client } = await gwClient(app.url, 'tools', { 'x-gw-api-key': key });
      await assert.rejects(client.request({ method: 'resources/read', params: { uri: 5 as unknown as string } }, EmptyResultSchema), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        return true;
      });
      await client.close();
    });

    test('a tools/call with nothing before its answer is answered as one JSON body', async () => {
      const headers = { 'x-gw-api-key': key, accept: 'application/json, text/event-stream' };
      const init = await app.http
        .post('/tools/mcp')
        .set(headers)
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const session = { ...headers, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      const answer = await app.http.post('/tools/mcp').set(session).send({ jsonrpc: '2.0', id: 'call-7', method: 'tools/call', params: { name: 'echo', arguments: { text: 'plain' } } });
      assert.equal(answer.status, 200);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      assert.equal(answer.headers['mcp-session-id'], session['mcp-session-id']);
      assert.deepEqual(answer.body, { jsonrpc: '2.0', id: 'call-7', result: { content: [{ type: 'text', text: 'plain' }] } });
      assert.deepEqual(upstream.toolCalls.at(-1), { name: 'echo', args: { text: 'plain' } });
      // A protocol version the SDK does not know is refused as its transport refuses it.
      const unknownVersion = await app.http.post('/tools/mcp').set({ ...session, 'mcp-protocol-version': '1999-01-01' }).send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
      assert.equal(unknownVersion.status, 400);
    });

    test('an upstream going away mid-session: a clear error, no hang', async () => {
      const fragile = await startFakeMcpServer({ name: 'fragile' });
      await addMcpServer(app, { url: fragile.url, slug: 'fragile' });
      const { client } = await gwClient(app.url, 'fragile', { 'x-gw-api-key': key });
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'up' } })), 'up');
      const pending = client.callTool({ name: 'slow', arguments: {} });
      // The slow call has reached the upstream before it goes away.
      while (!fragile.toolCalls.some((call) => call.name === 'slow')) await new Promise((resolve) => setImmediate(resolve));
      await fragile.close();
      await assert.rejects(pending, /MCP server fragile is unreachable or closed the connection/);
      await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'down' } }), /MCP server fragile is unreachable/);
      await client.close();
    });
  });
}

describe('sessions across instances', () => {
  test('consecutive requests of one session land on different instances', async () => {
    const upstream = await startFakeMcpServer({ name: 'shared' });
    const cluster = await startTestCluster(2, { env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    try {
      const [a, b] = cluster.apps as [TestApp, TestApp];
      await addMcpServer(a, { url: upstream.url, slug: 'shared' });
      const key = await workspaceKey(a);
      // Every request after the first goes to the other instance than the one before.
      let turn = 0;
      const seen: string[] = [];
      const alternating = ((input: string | URL | Request, init?: RequestInit) => {
        const target = turn++ % 2 === 0 ? a.url : b.url;
        seen.push(target);
        const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
        return fetch(`${target}${url.pathname}`, init);
      }) as typeof fetch;
      const before = upstream.requests.length;
      const { client } = await gwClient(a.url, 'shared', { 'x-gw-api-key': key }, alternating);
      for (let i = 0; i < 4; i++) assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: i, b: 1 } })), String(i + 1));
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ['add', 'delete_everything', 'echo', 'fail', 'slow']);
      assert.ok(seen.includes(a.url) && seen.includes(b.url));
      // One upstream session served them all.
      const sessions = new Set(upstream.requests.slice(before).map((headers) => headers['mcp-session-id']).filter(Boolean));
      assert.equal(sessions.size, 1);
      await client.close();
    } finally {
      await cluster.close();
      await upstream.close();
    }
  });

  test('an ended session is refused with 404 on any instance', async () => {
    const upstream = await startFakeMcpServer({ name: 'ending' });
    const app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    try {
      await addMcpServer(app, { url: upstream.url, slug: 'ending' });
      const key = await workspaceKey(app);
      const { client, transport } = await gwClient(app.url, 'ending', { 'x-gw-api-key': key });
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      const after = await app.http
        .post('/ending/mcp')
        .set({ 'x-gw-api-key': key, 'mcp-session-id': sessionId, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' })
        .send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
      assert.equal(after.status, 404);
      assert.equal(after.body.error.code, -32001);
      const other = await workspaceKey(app);
      const { transport: second } = await gwClient(app.url, 'ending', { 'x-gw-api-key': key });
      const stolen = await app.http
        .post('/ending/mcp')
        .set({ 'x-gw-api-key': other, 'mcp-session-id': second.sessionId!, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' })
        .send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
      assert.equal(stolen.status, 404, 'a session answers only to the caller that opened it');
      await client.close();
    } finally {
      await app.close();
      await upstream.close();
    }
  });
});
