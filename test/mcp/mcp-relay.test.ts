/**
 * The MCP gateway as a complete relay (beyond what the conformance suite exercises): capabilities
 * as the upstream declares them, sampling relayed to the calling client or refused when it did not
 * declare it, the session's GET stream carrying what the upstream sends outside any request,
 * subscriptions narrowed to enabled resources, cancellation reaching the upstream, a client and an
 * upstream on different protocol versions, and Host/Origin checked before authentication.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ResourceUpdatedNotificationSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, workspaceKey } from './mcp-fixtures.js';
import { startRelayUpstream, type RelayUpstream } from './relay-upstream.js';

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');

/** Waits for `condition`, checking at each turn of a bounded number of short pauses. */
async function eventually(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`never happened: ${what}`);
}

for (const engine of fullEngines()) {
  describe(`the MCP gateway relays both ways (${engine.name})`, () => {
    let app: TestApp;
    let upstream: RelayUpstream;
    let key: string;

    async function connect(capabilities: ClientCapabilities = {}, sampled = 'forty-two'): Promise<Client> {
      const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities });
      if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: sampled } }));
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/relay/mcp`), { requestInit: { headers: { 'x-gw-api-key': key } } }));
      return client;
    }

    before(async () => {
      upstream = await startRelayUpstream();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_MCP_ALLOWED_HOSTS: 'mcp.example.test' } });
      const { integrationId } = await addMcpServer(app, { url: upstream.url, slug: 'relay' });
      const put = await app.http
        .put(`/v1/mcp-integrations/${integrationId}/capabilities`)
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ capabilities: [{ name: 'memo://secret', type: 'resource', enabled: false }] });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await upstream.close();
    });

    test('initialize declares the capabilities the upstream declares, and logging/setLevel reaches it', async () => {
      const client = await connect();
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.logging, {});
      assert.equal(capabilities?.resources?.subscribe, true);
      assert.ok(capabilities?.tools);
      assert.deepEqual(await client.setLoggingLevel('debug'), {});
      await client.close();
    });

    test("the upstream's sampling request reaches the client that made the call, and the answer comes back", async () => {
      const client = await connect({ sampling: {} });
      assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'sampled: forty-two');
      await client.close();
    });

    test('a client that did not declare sampling: the request is refused, saying why', async () => {
      const client = await connect();
      const result = await client.callTool({ name: 'ask', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /sampling/i);
      await client.close();
    });

    test('the GET stream carries what the upstream sends outside any request; subscriptions are narrowed to enabled resources', async () => {
      const updated: string[] = [];
      const client = await connect({ sampling: {} }, 'from-the-stream');
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
      await client.subscribeResource({ uri: 'memo://a' });
      assert.deepEqual(upstream.subscriptions, ['memo://a']);
      await assert.rejects(client.subscribeResource({ uri: 'memo://secret' }), /memo:\/\/secret is not enabled/);
      assert.deepEqual(upstream.subscriptions, ['memo://a'], 'a disabled resource never reaches the upstream');
      // The client opens its GET stream in the background once initialized: announce until it carries the update.
      await eventually(async () => {
        await client.callTool({ name: 'announce', arguments: {} });
        return updated.length > 0;
      }, 'resources/updated on the GET stream');
      assert.equal(updated[0], 'memo://a');
      await eventually(() => upstream.streamSamplings.includes('from-the-stream'), "the client's answer to a sampling sent on the GET stream");
      await client.close();
    });

    test('tools/call answered on an SSE stream: the stream is read to its end, so the next calls reuse the connection', async () => {
      const client = await connect();
      try {
        assert.equal(textOf(await client.callTool({ name: 'offered', arguments: {} })), '');
        const opened = upstream.connections;
        const calls = upstream.toolCalls;
        for (let i = 0; i < 3; i++) {
          // Time for gw to read the end of the previous answer stream, which follows its last event.
          await new Promise((resolve) => setTimeout(resolve, 50));
          assert.equal(textOf(await client.callTool({ name: 'log', arguments: {} })), 'logged');
        }
        assert.equal(upstream.toolCalls - calls, 3, 'each call reached the server');
        assert.equal(upstream.connections, opened, 'no new connection');
      } finally {
        await client.close();
      }
    });

    test("a client's cancellation reaches the upstream request it concerns", async () => {
      const client = await connect();
      const controller = new AbortController();
      const calling = client.request({ method: 'tools/call', params: { name: 'wait', arguments: {} } }, CallToolResultSchema, { signal: controller.signal });
      await eventually(() => upstream.started === 1, 'the call reached the upstream');
      controller.abort('the user gave up');
      await assert.rejects(calling);
      await eventually(() => upstream.cancelled === 1, 'the upstream request cancelled');
      await client.close();
    });

    test('a client and an upstream on different protocol versions are bridged', async () => {
      const headers = { 'x-gw-api-key': key, accept: 'application/json, text/event-stream' };
      const init = await app.http
        .post('/relay/mcp')
        .set(headers)
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
      assert.equal(init.status, 200);
      assert.equal(init.body.result.protocolVersion, '2025-03-26');
      const sessionId = String(init.headers['mcp-session-id']);
      const session = await app.services.store.mcpSessions.get(sessionId);
      assert.equal(session?.client_protocol_version, '2025-03-26');
      assert.notEqual(session?.protocol_version, '2025-03-26', 'gw negotiated its own (newer) version with the upstream');
      const listed = await app.http.post('/relay/mcp').set({ ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' }).send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      assert.equal(listed.status, 200);
      assert.ok(listed.body.result.tools.some((tool: { name: string }) => tool.name === 'ask'));
    });

    test('a batch carrying a cancellation beside a request: the request it names is cancelled, the other answered', async () => {
      const headers = { 'x-gw-api-key': key, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
      const init = await app.http
        .post('/relay/mcp')
        .set(headers)
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'batch', version: '1' } } });
      const session = { ...headers, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-03-26' };
      const startedBefore = upstream.started;
      const cancelledBefore = upstream.cancelled;
      const waiting = fetch(`${app.url}/relay/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: {} } }) });
      await eventually(() => upstream.started === startedBefore + 1, 'the call reached the upstream');
      const answer = await app.http
        .post('/relay/mcp')
        .set(session)
        .send([
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'changed my mind' } },
          { jsonrpc: '2.0', id: 8, method: 'tools/list' },
        ]);
      assert.equal(answer.status, 200, answer.text);
      const answers = (Array.isArray(answer.body) ? answer.body : [answer.body]) as Array<{ id: number; result?: { tools: unknown[] } }>;
      assert.deepEqual(answers.map((one) => one.id), [8]);
      await eventually(() => upstream.cancelled === cancelledBefore + 1, 'the upstream request cancelled');
      await (await waiting).body?.cancel();
    });

    test('Host and Origin are checked before authentication (DNS rebinding)', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      const accept = 'application/json, text/event-stream';
      const port = new URL(app.url).port;
      const foreignHost = await app.http.post('/relay/mcp').set({ host: 'evil.example.com', origin: 'http://evil.example.com', accept }).send(initialize);
      assert.equal(foreignHost.status, 421);
      assert.match(foreignHost.body.error.message, /evil\.example\.com/);
      const foreignOrigin = await app.http.post('/relay/mcp').set({ 'x-gw-api-key': key, origin: 'http://evil.example.com', accept }).send(initialize);
      assert.equal(foreignOrigin.status, 403);
      assert.match(foreignOrigin.body.error.message, /Origin http:\/\/evil\.example\.com/);
      for (const host of [`localhost:${port}`, `[::1]:${port}`, 'mcp.example.test']) {
        const answer = await app.http.post('/relay/mcp').set({ 'x-gw-api-key': key, host, origin: `http://${host}`, accept }).send(initialize);
        assert.equal(answer.status, 200, host);
      }
      const anonymous = await app.http.post('/relay/mcp').set({ accept }).send(initialize);
      assert.equal(anonymous.status, 401, 'a loopback Host goes on to authentication');
    });
  });
}
