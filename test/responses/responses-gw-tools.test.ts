/**
 * Hosted tools gw runs itself on a provider that does not host them (an Anthropic-type fake), with
 * the official `openai` client: file_search over a gw vector store (bag-of-words embedder on
 * loopback) as a `file_search_call` item and `file_citation` annotations, streamed and not; an
 * `mcp` tool naming a gw MCP server (a real SDK server on loopback behind gw's MCP gateway) listed,
 * called and answered (streamed, and on the WebSocket mode too), and its approval round trip; a private `server_url` refused by the outbound
 * guard (a stubbed resolver: nothing is connected to).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startFakeWordEmbedder } from '../helpers/fake-word-embedder.js';
import { ANSWER, BAKING, MARKER, createKitchenStore, embedderProvider } from '../helpers/kitchen-vector-store.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { stubResolver } from '../helpers/stub-resolver.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { addMcpServer } from '../mcp/mcp-fixtures.js';
import { responseSchemaErrors } from './response-schema.js';


const text = (value: string): FakeAnthropicReply => ({ kind: 'message', message: { content: [{ type: 'text', text: value }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
const toolUse = (id: string, name: string, input: Record<string, unknown>): FakeAnthropicReply => ({
  kind: 'message',
  message: { content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 9 } },
});

type Json = Record<string, unknown>;

for (const engine of fullEngines())
  describe(`Responses hosted tools gw runs (${engine.name})`, () => {
    let app: TestApp;
    let embedder: RecordingServer;
    let anthropic: RecordingServer;
    let mcp: FakeMcpServer;
    let client: OpenAI;
    const replies: FakeAnthropicReply[] = [];
    const logs: RequestLogEntry[] = [];
    let vectorStoreId: string;
    let bakingId: string;
    const lastSent = () => anthropic.received.at(-1)!.body as { tools?: Array<{ name: string }>; messages: Array<{ role: string; content: Json[] | string }> };

    before(async () => {
      embedder = await startFakeWordEmbedder();
      anthropic = await startFakeAnthropic(() => replies.shift() ?? text('Hello'));
      mcp = await startFakeMcpServer();
      app = await startTestApp({
        engine,
        env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_JOBS_POLL_MS: '100' },
        resolveHost: stubResolver({ 'intranet.example.com': ['10.0.0.7'] }),
      });
      recordLogsInto(app, logs);
      for (const provider of [
        embedderProvider(embedder.url),
        { name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant', configurations: { custom_host: anthropic.url } },
      ]) {
        const saved = await app.http.post('/v1/providers').set('x-gw-api-key', ADMIN_KEY).send(provider);
        assert.equal(saved.status, 201, JSON.stringify(saved.body));
      }
      await addMcpServer(app, { url: mcp.url, slug: 'calc' });
      client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
      ({ bakingId, vectorStoreId } = await createKitchenStore(client));
    });
    after(async () => {
      await app?.close();
      await Promise.all([embedder?.close(), anthropic?.close(), mcp?.close()]);
    });

    const fileSearch = () => ({ type: 'file_search' as const, vector_store_ids: [vectorStoreId], max_num_results: 1 });

    function assertCited(response: OpenAI.Responses.Response): void {
      const search = response.output[0] as OpenAI.Responses.ResponseFileSearchToolCall;
      assert.equal(search.type, 'file_search_call');
      assert.equal(search.status, 'completed');
      assert.deepEqual(search.queries, ['bake bread loaf oven']);
      assert.deepEqual(search.results!.map((result) => [result.file_id, result.filename, result.text]), [[bakingId, 'baking.txt', BAKING]], 'max_num_results: 1, the best passage');
      const message = response.output[1] as OpenAI.Responses.ResponseOutputMessage;
      const part = message.content[0] as OpenAI.Responses.ResponseOutputText;
      assert.equal(part.text, ANSWER);
      assert.deepEqual(part.annotations, [{ type: 'file_citation', file_id: bakingId, filename: 'baking.txt', index: ANSWER.indexOf(MARKER) }]);
      // Two rounds: usage is their sum.
      assert.deepEqual([response.usage!.input_tokens, response.usage!.output_tokens], [30, 13]);
      assert.equal(responseSchemaErrors(response), '');
    }

    it('file_search: the model calls it, gw searches its vector store, feeds the passage back, and the answer cites the file', async () => {
      replies.push(toolUse('toolu_fs', 'file_search', { query: 'bake bread loaf oven' }), text(ANSWER));
      const { data: response, response: raw } = await client.responses
        .create({ model: '@claude/claude-sonnet-4-5', input: 'How do I bake bread?', tools: [fileSearch(), { type: 'web_search' }], include: ['file_search_call.results'] })
        .withResponse();
      assert.deepEqual(response.output.map((item) => item.type), ['file_search_call', 'message']);
      assertCited(response);
      // gw ran file_search: only web_search is said to be left out.
      assert.equal(raw.headers.get('x-gw-omitted-tools'), 'web_search');
      const sent = lastSent();
      const result = (sent.messages.at(-1)!.content as Json[]).find((block) => block.type === 'tool_result')!;
      assert.equal(result.tool_use_id, 'toolu_fs');
      assert.match(JSON.stringify(result.content), /baking\.txt/);
      const stored = await client.responses.retrieve(response.id);
      assert.deepEqual(stored.output.map((item) => item.id), response.output.map((item) => item.id));
      // One log row per round, each with its own usage and cost, found by the response's id.
      const rows = logs.filter((entry) => entry.metadata._response_id === response.id);
      assert.deepEqual(rows.map((entry) => [entry.metadata._tool_round, entry.prompt_tokens, entry.metadata._omitted_tools]), [['0', 20, 'web_search'], ['1', 10, 'web_search']]);
      assert.ok(rows.every((entry) => entry.cost > 0));
    });

    it('file_search streamed: the search item with its progress events, then the cited answer', async () => {
      replies.push(toolUse('toolu_fs2', 'file_search', { query: 'bake bread loaf oven' }), text(ANSWER));
      const stream = client.responses.stream({ model: '@claude/claude-sonnet-4-5', input: 'How do I bake bread?', tools: [fileSearch()], include: ['file_search_call.results'] });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      const final = await stream.finalResponse();
      assertCited(final);
      const at = (type: string) => types.indexOf(type);
      assert.ok(at('response.file_search_call.in_progress') > at('response.output_item.added'));
      assert.ok(at('response.file_search_call.in_progress') < at('response.file_search_call.searching'));
      assert.ok(at('response.file_search_call.searching') < at('response.file_search_call.completed'));
      assert.ok(at('response.file_search_call.completed') < at('response.output_text.delta'));
      assert.equal(types.filter((type) => type === 'response.function_call_arguments.delta').length, 0, 'the search call is not streamed as a function call');
      assert.equal(types.at(-1), 'response.completed');
    });

    it('file_search filters apply: a filter no file matches finds nothing, and the model is told so', async () => {
      replies.push(toolUse('toolu_fs3', 'file_search', { query: 'bake bread loaf oven' }), text('Nothing found.'));
      const response = await client.responses.create({
        model: '@claude/claude-sonnet-4-5',
        input: 'How do I bake bread?',
        tools: [{ ...fileSearch(), filters: { type: 'eq', key: 'topic', value: 'cooking' } }],
        include: ['file_search_call.results'],
      });
      assert.deepEqual((response.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results, []);
      const result = (lastSent().messages.at(-1)!.content as Json[]).find((block) => block.type === 'tool_result')!;
      assert.match(JSON.stringify(result.content), /No passage/);
    });

    it("mcp on a gw MCP server: its tools listed and offered, the call run through gw's MCP gateway, the answer after it", async () => {
      replies.push(toolUse('toolu_add', 'calc__add', { a: 2, b: 3 }), text('It is 5.'));
      const calls = mcp.toolCalls.length;
      const response = await client.responses.create({
        model: '@claude/claude-sonnet-4-5',
        input: 'Add 2 and 3',
        tools: [{ type: 'mcp', server_label: 'calc', allowed_tools: ['add', 'echo'], require_approval: 'never' }],
      });
      assert.deepEqual(response.output.map((item) => item.type), ['mcp_list_tools', 'mcp_call', 'message']);
      const listed = response.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools;
      assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), ['add', 'echo']);
      const mcpCall = response.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
      assert.deepEqual([mcpCall.server_label, mcpCall.name, JSON.parse(mcpCall.arguments), mcpCall.output], ['calc', 'add', { a: 2, b: 3 }, '5']);
      assert.deepEqual(mcp.toolCalls.slice(calls), [{ name: 'add', args: { a: 2, b: 3 } }]);
      // The call went through gw's MCP gateway: its own log row for the tool call.
      const responseRow = logs.find((entry) => entry.metadata._response_id === response.id)!;
      const mcpRow = logs.find((entry) => entry.endpoint === 'mcp' && entry.trace_id === responseRow.trace_id);
      assert.deepEqual([mcpRow?.provider, mcpRow?.model, mcpRow?.status], ['mcp:calc', 'add', 200], 'an MCP gateway log row for the call, in the response\'s trace');
      assert.deepEqual((lastSent().tools ?? []).map((tool) => tool.name).sort(), ['calc__add', 'calc__echo']);
      assert.equal(response.output_text, 'It is 5.');
      assert.equal(responseSchemaErrors(response), '');
    });

    it('mcp with require_approval: the response stops with an mcp_approval_request; the approval runs the call and the model answers', async () => {
      replies.push(toolUse('toolu_echo', 'calc__echo', { text: 'hi' }));
      const calls = mcp.toolCalls.length;
      const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'calc', require_approval: 'always' }];
      const first = await client.responses.create({ model: '@claude/claude-sonnet-4-5', input: 'Echo hi', tools });
      assert.deepEqual(first.output.map((item) => item.type), ['mcp_list_tools', 'mcp_approval_request']);
      const request = first.output[1] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
      assert.deepEqual([request.name, JSON.parse(request.arguments)], ['echo', { text: 'hi' }]);
      assert.equal(mcp.toolCalls.length, calls, 'nothing runs before the approval');

      // Going on without answering the approval: the waiting call is answered as not approved.
      replies.push(text('Fine.'));
      await client.responses.create({ model: '@claude/claude-sonnet-4-5', previous_response_id: first.id, tools, input: 'Never mind' });
      const declined = lastSent().messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).find((block) => block.type === 'tool_result')!;
      assert.equal(declined.tool_use_id, 'toolu_echo');
      assert.match(JSON.stringify(declined.content), /did not approve/);
      assert.equal(mcp.toolCalls.length, calls);

      replies.push(text('Echoed.'));
      const second = await client.responses.create({
        model: '@claude/claude-sonnet-4-5',
        previous_response_id: first.id,
        tools,
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      });
      assert.deepEqual(second.output.map((item) => item.type), ['mcp_list_tools', 'mcp_call', 'message']);
      const mcpCall = second.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
      assert.deepEqual([mcpCall.approval_request_id, mcpCall.output], [request.id, 'hi']);
      assert.deepEqual(mcp.toolCalls.slice(calls), [{ name: 'echo', args: { text: 'hi' } }]);
      const result = (lastSent().messages.at(-1)!.content as Json[]).find((block) => block.type === 'tool_result')!;
      assert.equal(result.tool_use_id, 'toolu_echo');
      assert.equal(second.output_text, 'Echoed.');
    });

    it('mcp streamed: the tool list and the call as items with their progress events, then the answer', async () => {
      replies.push(toolUse('toolu_add2', 'calc__add', { a: 4, b: 5 }), text('It is 9.'));
      const stream = client.responses.stream({ model: '@claude/claude-sonnet-4-5', input: 'Add 4 and 5', tools: [{ type: 'mcp', server_label: 'calc', require_approval: 'never' }] });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      const final = await stream.finalResponse();
      assert.deepEqual(final.output.map((item) => item.type), ['mcp_list_tools', 'mcp_call', 'message']);
      assert.equal((final.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall).output, '9');
      const order = ['response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.mcp_call.in_progress', 'response.mcp_call.completed', 'response.output_text.delta', 'response.completed'];
      const at = order.map((type) => types.indexOf(type));
      assert.ok(at.every((index, i) => index >= 0 && (i === 0 || index > at[i - 1]!)), types.join(' '));
      assert.equal(final.output_text, 'It is 9.');
    });

    it('over the WebSocket mode: the mcp call runs through gw\'s MCP gateway with the credential given at the upgrade', async () => {
      replies.push(toolUse('toolu_ws', 'calc__add', { a: 1, b: 1 }), text('Two.'));
      const ws = new ResponsesWS(new OpenAI({ apiKey: 'unused', baseURL: `${app.url}/v1`, maxRetries: 0 }), { headers: { 'x-gw-api-key': ADMIN_KEY } });
      const types: string[] = [];
      const done = new Promise<Json>((resolve, reject) => {
        ws.on('event', (event) => {
          types.push(event.type);
          if (event.type === 'response.completed') resolve((event as unknown as { response: Json }).response);
          if (event.type === 'error') reject(new Error(JSON.stringify(event)));
        });
        ws.on('error', () => undefined);
      });
      ws.send({ type: 'response.create', model: '@claude/claude-sonnet-4-5', input: 'Add 1 and 1', tools: [{ type: 'mcp', server_label: 'calc', require_approval: 'never' }] } as never);
      try {
        const response = await done;
        const output = response.output as Array<{ type: string; output?: string }>;
        assert.deepEqual(output.map((item) => item.type), ['mcp_list_tools', 'mcp_call', 'message']);
        assert.equal(output[1]!.output, '2');
        assert.ok(types.includes('response.mcp_call.completed'));
      } finally {
        ws.close({ code: 1000, reason: 'done' });
      }
    });

    it('an mcp call resent as an input item (no previous_response_id) is the call and its output to the model', async () => {
      replies.push(text('Noted.'));
      await client.responses.create({
        model: '@claude/claude-sonnet-4-5',
        store: false,
        tools: [{ type: 'mcp', server_label: 'calc', require_approval: 'never' }],
        input: [
          { role: 'user', content: 'Add 2 and 3' },
          { type: 'mcp_call', id: 'mcp_1', server_label: 'calc', name: 'add', arguments: '{"a":2,"b":3}', output: '5' } as OpenAI.Responses.ResponseInputItem,
          { role: 'user', content: 'Thanks' },
        ],
      });
      const messages = lastSent().messages;
      const use = (messages[1]!.content as Json[]).find((block) => block.type === 'tool_use')!;
      assert.deepEqual([use.id, use.name, use.input], ['mcp_1', 'calc__add', { a: 2, b: 3 }]);
      const result = (messages[2]!.content as Json[]).find((block) => block.type === 'tool_result')!;
      assert.equal(result.tool_use_id, 'mcp_1');
    });

    it('an mcp tool naming no gw MCP server and no server_url (a connector) is left out, as before', async () => {
      replies.push(text('Hi.'));
      const { response: raw } = await client.responses
        .create({ model: '@claude/claude-sonnet-4-5', input: 'Hi', tools: [{ type: 'mcp', server_label: 'nowhere', connector_id: 'connector_gmail', require_approval: 'never' }] })
        .withResponse();
      assert.equal(raw.headers.get('x-gw-omitted-tools'), 'mcp');
      assert.equal(lastSent().tools, undefined);
    });

    it('an mcp server_url on a private address is refused by the outbound guard (400), before any model call', async () => {
      const before = anthropic.received.length;
      await assert.rejects(
        client.responses.create({ model: '@claude/claude-sonnet-4-5', input: 'Hi', tools: [{ type: 'mcp', server_label: 'intra', server_url: 'http://intranet.example.com/mcp', require_approval: 'never' }] }),
        (error: InstanceType<typeof OpenAI.APIError>) => error.status === 400 && error.code === 'unsafe_mcp_url' && error.param === 'tools[0].server_url',
      );
      assert.equal(anthropic.received.length, before);
    });
  });
