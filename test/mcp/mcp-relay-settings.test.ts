/**
 * An MCP server's relay settings (relay_logging, relay_sampling, relay_elicitation): with them on
 * (the default) the upstream's log messages, sampling and elicitation reach the client; switched
 * off, a session opened before the change has them refused with a JSON-RPC error naming the
 * setting (or dropped, for log messages) at once, and a session opened after it is not offered
 * them at all (no `logging` capability for the client, no `sampling`/`elicitation` for the upstream).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, workspaceKey } from './mcp-fixtures.js';
import { startRelayUpstream, type RelayUpstream } from './relay-upstream.js';

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');

for (const engine of fullEngines()) {
  describe(`an MCP server's relay settings (${engine.name})`, () => {
    let app: TestApp;
    let upstream: RelayUpstream;
    let key: string;
    let serverId: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    /** A client that declares sampling and elicitation and answers both; `logs` collects the log messages it receives. */
    async function connect(logs: string[] = []): Promise<Client> {
      const client = new Client({ name: 'relay-settings-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'yes' } }));
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
      client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logs.push(String(notification.params.data)));
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/settings/mcp`), { requestInit: { headers: { 'x-gw-api-key': key } } }));
      return client;
    }

    before(async () => {
      upstream = await startRelayUpstream();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      ({ serverId } = await addMcpServer(app, { url: upstream.url, slug: 'settings' }));
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await upstream.close();
    });

    test('on by default: log messages, sampling and elicitation reach the client', async () => {
      const shown = await app.http.get(`/v1/mcp-servers/${serverId}`).set(admin());
      assert.equal(shown.status, 200);
      assert.deepEqual([shown.body.relay_logging, shown.body.relay_sampling, shown.body.relay_elicitation], [true, true, true]);
      const logs: string[] = [];
      const client = await connect(logs);
      assert.deepEqual(client.getServerCapabilities()?.logging, {});
      assert.equal(textOf(await client.callTool({ name: 'offered', arguments: {} })), 'elicitation,sampling');
      assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'sampled: yes');
      assert.equal(textOf(await client.callTool({ name: 'elicit', arguments: {} })), 'elicited: accept');
      assert.equal(textOf(await client.callTool({ name: 'log', arguments: {} })), 'logged');
      assert.deepEqual(logs, ['a log line']);
      await client.close();
    });

    test('switched off: an open session has them refused or dropped at once; a new session is not offered them', async () => {
      const logs: string[] = [];
      const opened = await connect(logs);
      const updated = await app.http.put(`/v1/mcp-servers/${serverId}`).set(admin()).send({ relay_logging: false, relay_sampling: false, relay_elicitation: false });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.deepEqual([updated.body.relay_logging, updated.body.relay_sampling, updated.body.relay_elicitation], [false, false, false]);

      // The upstream was offered sampling and elicitation when this session opened: gw refuses them now, naming the setting.
      const asked = await opened.callTool({ name: 'ask', arguments: {} });
      assert.equal(asked.isError, true);
      assert.match(textOf(asked), /sampling\/createMessage.*relay_sampling setting is off/);
      const elicited = await opened.callTool({ name: 'elicit', arguments: {} });
      assert.equal(elicited.isError, true);
      assert.match(textOf(elicited), /elicitation\/create.*relay_elicitation setting is off/);
      assert.equal(textOf(await opened.callTool({ name: 'log', arguments: {} })), 'logged');
      assert.deepEqual(logs, [], 'the log message is not relayed');
      await opened.close();

      const fresh = await connect();
      assert.equal(fresh.getServerCapabilities()?.logging, undefined, 'no logging capability offered to the client');
      await assert.rejects(fresh.setLoggingLevel('debug'), (error: { code?: number }) => error.code === ErrorCode.MethodNotFound);
      assert.equal(textOf(await fresh.callTool({ name: 'offered', arguments: {} })), '', 'neither sampling nor elicitation offered to the upstream');
      await fresh.close();
    });

    test('set at creation, and refused when not a boolean', async () => {
      const integration = (await app.http.get(`/v1/mcp-servers/${serverId}`).set(admin())).body.mcp_integration_id as string;
      const created = await app.http.post('/v1/mcp-servers').set(admin()).send({ name: 'quiet', slug: 'quiet-settings', mcp_integration_id: integration, relay_sampling: false });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.relay_logging, created.body.relay_sampling, created.body.relay_elicitation], [true, false, true]);
      const refused = await app.http.put(`/v1/mcp-servers/${serverId}`).set(admin()).send({ relay_logging: 'no' });
      assert.equal(refused.status, 400);
    });
  });
}
