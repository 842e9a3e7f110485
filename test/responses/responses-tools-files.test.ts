/**
 * Every tool type of OpenAI's Responses schema, and input_file parts, over an OpenAI-type and an
 * Anthropic-type fake with the official `openai` client: function, custom and namespace tools go to
 * the provider as functions and their calls come back under the names offered; a call offering
 * hosted tools goes as it is to a provider with OpenAI's Responses API (the host runs them, its
 * items come back, streamed as they came), and elsewhere the hosted tools are left out
 * (x-gw-omitted-tools, the log row's `_omitted_tools`) or refused with
 * GW_RESPONSES_REFUSE_HOSTED_TOOLS; a tool turn resent whole (reasoning, function calls of a
 * namespace, outputs as content parts, hosted call items) becomes chat messages; PDFs become the
 * provider's document, text files text, from file_data or a gw file_id; a host without documents
 * answers 400 naming itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import type { RecordedRequest, RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { responseSchemaErrors } from './response-schema.js';

type Json = Record<string, unknown>;

/** A tiny PDF: its header is what gw recognises a PDF by. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

const crm = {
  type: 'namespace' as const,
  name: 'crm',
  description: 'Customer records',
  tools: [{ type: 'function' as const, name: 'find_customer', description: 'Find a customer', parameters: { type: 'object', properties: { name: { type: 'string' } } }, strict: false }],
};
const patchTool = { type: 'custom' as const, name: 'apply_patch', description: 'Apply a patch to files' };
const shell = { type: 'function' as const, name: 'exec_command', description: 'Run a command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false };

/** Calls the first tool offered (with `name: "Ada"`, or the custom tool's `input`), then answers in text once a result is in. */
function anthropicScript(request: RecordedRequest): FakeAnthropicReply {
  const body = request.body as { tools?: Array<{ name: string }>; messages?: Array<{ content: unknown }> };
  const last = body.messages?.at(-1)?.content;
  const answered = Array.isArray(last) && last.some((block: { type?: string }) => block.type === 'tool_result');
  const tool = body.tools?.[0];
  if (tool && !answered) {
    const input = tool.name === 'apply_patch' ? { input: '*** Begin Patch' } : { name: 'Ada' };
    return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_01', name: tool.name, input }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 8 } } };
  }
  return { kind: 'message', message: { content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 2 } } };
}

interface Upstream {
  name: string;
  provider: string;
  model: string;
  start(): Promise<{ url: string; requests: () => Array<{ path: string; body: Json }>; close(): Promise<void> }>;
  /** The upstream's tool names, in the order sent. */
  toolNames(body: Json): string[];
  /** How the upstream got the document part of its last user message. */
  documentOf(body: Json): unknown;
  textOf(body: Json): string;
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'an OpenAI-type provider',
    provider: 'openai',
    model: 'gpt-4o',
    async start() {
      const fake: FakeOpenAi = await startFakeOpenAi();
      return { url: fake.url, requests: () => fake.requests, close: () => fake.close() };
    },
    toolNames: (body) => (body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name),
    documentOf: (body) => ((body.messages as Array<{ content: Json[] }>).at(-1)!.content.find((part) => part.type === 'file') as Json).file,
    textOf: (body) => ((body.messages as Array<{ content: Json[] }>).at(-1)!.content.filter((part) => part.type === 'text') as Array<{ text: string }>).map((part) => part.text).join('\n'),
  },
  {
    name: 'an Anthropic-type provider',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    async start() {
      const fake: RecordingServer = await startFakeAnthropic(anthropicScript);
      return { url: fake.url, requests: () => fake.received as Array<{ path: string; body: Json }>, close: () => fake.close() };
    },
    toolNames: (body) => (body.tools as Array<{ name: string }>).map((tool) => tool.name),
    documentOf: (body) => ((body.messages as Array<{ content: Json[] }>).at(-1)!.content.find((part) => part.type === 'document') as Json).source,
    textOf: (body) => ((body.messages as Array<{ content: Json[] }>).at(-1)!.content.filter((part) => part.type === 'text') as Array<{ text: string }>).map((part) => part.text).join('\n'),
  },
];

for (const engine of fullEngines())
  for (const upstream of UPSTREAMS)
    describe(`Responses tools and files over ${upstream.name} (${engine.name})`, () => {
      let app: TestApp;
      let fake: Awaited<ReturnType<Upstream['start']>>;
      let client: OpenAI;
      const logs: RequestLogEntry[] = [];
      const sent = () => fake.requests().at(-1)!.body;
      const loggedAfter = async (count: number) => {
        for (let i = 0; i < 200 && logs.length <= count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return logs.at(-1)!;
      };

      before(async () => {
        fake = await upstream.start();
        app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
        recordLogsInto(app, logs);
        client = new OpenAI({ apiKey: 'sk-upstream', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': upstream.provider, 'x-gw-custom-host': fake.url } });
      });
      after(async () => {
        await app?.close();
        await fake?.close();
      });

      it('sends function, namespace and custom tools as functions; hosted tools to the host that runs them, else left out and said so', async () => {
        const before = logs.length;
        const { data: response, response: raw } = await client.responses
          .create({ model: upstream.model, input: 'Find Ada', tools: [crm, shell, patchTool, { type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }] })
          .withResponse();
        const call = response.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
        // The Anthropic fake calls the first tool it is offered (the namespace's, mapped back); OpenAI's fake its first plain function.
        assert.deepEqual([call.name, call.namespace], upstream.provider === 'openai' ? ['exec_command', undefined] : ['find_customer', 'crm']);
        assert.deepEqual(response.tools.map((tool) => tool.type), ['namespace', 'function', 'custom', 'web_search', 'file_search']);
        assert.match(response.id, /^resp_[0-9a-f]{48}$/, "gw's own id");
        assert.equal(responseSchemaErrors(response), '');
        const entry = await loggedAfter(before);
        assert.ok(entry.total_tokens > 0 && entry.cost > 0);
        if (upstream.provider === 'openai') {
          // OpenAI hosts web_search: the call goes to its Responses API as it is, nothing left out.
          assert.equal(fake.requests().at(-1)!.path, '/v1/responses');
          assert.equal(raw.headers.get('x-gw-omitted-tools'), null);
          assert.deepEqual((sent().tools as Json[]).map((tool) => tool.type), ['namespace', 'function', 'custom', 'web_search', 'file_search']);
          assert.equal(sent().store, false);
          assert.deepEqual(response.output.map((item) => item.type), ['web_search_call', 'function_call']);
          assert.equal(entry.metadata._omitted_tools, undefined);
          assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [21, 9]);
        } else {
          // gw runs file_search over its own vector stores (offered as a function); web_search it cannot run.
          assert.equal(raw.headers.get('x-gw-omitted-tools'), 'web_search');
          assert.deepEqual(upstream.toolNames(sent()), ['crm__find_customer', 'exec_command', 'apply_patch', 'file_search']);
          assert.equal(entry.metadata._omitted_tools, 'web_search');
        }
      });

      it('continues a conversation with hosted tools from previous_response_id, and streams it', async () => {
        const first = await client.responses.create({ model: upstream.model, input: 'Search the news', tools: [{ type: 'web_search' }] });
        const stream = client.responses.stream({ model: upstream.model, previous_response_id: first.id, input: 'And more?', tools: [{ type: 'web_search' }] });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        const final = await stream.finalResponse();
        assert.equal(final.id.startsWith('resp_'), true);
        assert.equal(responseSchemaErrors(final), '');
        assert.equal(types.at(-1), 'response.completed');
        const stored = await client.responses.retrieve(final.id);
        assert.deepEqual([stored.output_text, stored.output.map((item) => item.id)], [final.output_text, final.output.map((item) => item.id)]);
        if (upstream.provider === 'openai') {
          assert.deepEqual(final.output.map((item) => item.type), ['web_search_call', 'message']);
          const input = sent().input as Array<{ role?: string; type?: string }>;
          // The first turn (its input and answer) comes first, as items, then the new input.
          assert.deepEqual(input.map((item) => item.role ?? item.type), ['user', 'assistant', 'user']);
        } else assert.equal(final.output_text, 'Done.');
      });

      it('streams a custom tool call back as a custom_tool_call with its input', async () => {
        const stream = client.responses.stream({ model: upstream.model, input: 'Patch it', tools: [patchTool] });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        const final = await stream.finalResponse();
        const call = final.output[0] as OpenAI.Responses.ResponseCustomToolCall;
        assert.equal(call.type, 'custom_tool_call');
        assert.equal(call.name, 'apply_patch');
        // The OpenAI fake calls its first tool with {"location":"Paris"}: not the custom shape, so the raw arguments are the input.
        assert.equal(call.input, upstream.provider === 'anthropic' ? '*** Begin Patch' : '{"location":"Paris"}');
        assert.ok(types.includes('response.custom_tool_call_input.done'));
        assert.equal(responseSchemaErrors(final), '');
      });

      it('takes a tool turn resent whole: reasoning and hosted call items dropped, namespace calls and content-part outputs as chat', async () => {
        const response = await client.responses.create({
          model: upstream.model,
          store: false,
          tools: [crm],
          input: [
            { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a helper.' }] },
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Find Ada' }] },
            { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look her up.' }], encrypted_content: 'opaque' },
            { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'Ada' } } as unknown as OpenAI.Responses.ResponseInputItem,
            { type: 'function_call', call_id: 'call_1', name: 'find_customer', namespace: 'crm', arguments: '{"name":"Ada"}' },
            { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'Ada, id 7' }] },
          ],
        });
        assert.equal(response.status, 'completed');
        const body = sent();
        const messages = body.messages as Array<{ role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }>;
        if (upstream.provider === 'openai') {
          assert.deepEqual(messages.map((message) => message.role), ['developer', 'user', 'assistant', 'tool']);
          assert.equal(messages[2]!.tool_calls![0]!.function.name, 'crm__find_customer');
          assert.equal(messages[3]!.content, 'Ada, id 7');
        } else {
          const blocks = messages.flatMap((message) => message.content as Json[]);
          assert.ok(blocks.some((block) => block.type === 'tool_use' && block.name === 'crm__find_customer'));
          assert.ok(blocks.some((block) => block.type === 'tool_result' && block.content === 'Ada, id 7'));
        }
      });

      it('sends a PDF as the provider document and a text file as text, from file_data and from a gw file_id', async () => {
        const upload = await app.http.post('/v1/files').set('authorization', `Bearer ${ADMIN_KEY}`).field('purpose', 'user_data').attach('file', PDF, 'report.pdf');
        assert.equal(upload.status, 200, JSON.stringify(upload.body));
        for (const file of [{ file_data: PDF.toString('base64'), filename: 'report.pdf' }, { file_data: `data:application/pdf;base64,${PDF.toString('base64')}` }, { file_id: upload.body.id as string }]) {
          await client.responses.create({ model: upstream.model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Summarise' }, { type: 'input_file', ...file }] }] });
          const document = upstream.documentOf(sent()) as Json;
          if (upstream.provider === 'openai') assert.equal(document.file_data, `data:application/pdf;base64,${PDF.toString('base64')}`);
          else assert.deepEqual(document, { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') });
        }
        await client.responses.create({ model: upstream.model, input: [{ role: 'user', content: [{ type: 'input_file', filename: 'notes.md', file_data: Buffer.from('# Notes\nship on Tuesday').toString('base64') }] }] });
        assert.equal(upstream.textOf(sent()), '<file name="notes.md">\n# Notes\nship on Tuesday\n</file>');
      });

      it('refuses files it cannot send: binary, file_url, an unknown file id', async () => {
        const refusals: Array<[Json, RegExp]> = [
          [{ file_data: Buffer.from([0, 1, 2, 3, 255]).toString('base64'), filename: 'blob.bin' }, /neither a PDF nor text/],
          [{ file_url: 'https://example.com/a.pdf' }, /file_url/],
          [{ file_id: 'file-missing' }, /No file with id/],
        ];
        for (const [file, message] of refusals) {
          await assert.rejects(client.responses.create({ model: upstream.model, input: [{ role: 'user', content: [{ type: 'input_file', ...file } as OpenAI.Responses.ResponseInputFile] }] }), (error: unknown) => {
            assert.ok(error instanceof OpenAI.BadRequestError, String(error));
            assert.match(error.message, message);
            return true;
          });
        }
      });
    });

for (const engine of fullEngines())
  describe(`Responses hosted tools refused, held native streams, documents refused (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_RESPONSES_REFUSE_HOSTED_TOOLS: 'true' } });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });
    const post = (provider: string, body: Json) =>
      app.http.post('/v1/responses').set({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': provider, 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-upstream' }).send(body);

    it('with GW_RESPONSES_REFUSE_HOSTED_TOOLS, refuses a hosted tool a provider cannot run (400 naming both), and still forwards it to one that can', async () => {
      const tools = [shell, { type: 'code_interpreter', container: { type: 'auto' } }];
      const calls = fake.requests.length;
      const refused = await post('anthropic', { model: 'claude-sonnet-4-5', input: 'hi', tools });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.param, 'tools[1]');
      assert.match(refused.body.error.message, /^anthropic cannot run hosted tools \(code_interpreter\)/);
      assert.equal(fake.requests.length, calls, 'no upstream call');
      const forwarded = await post('openai', { model: 'gpt-4o', input: 'hi', tools });
      assert.equal(forwarded.status, 200, JSON.stringify(forwarded.body));
      assert.equal(fake.requests.at(-1)!.path, '/v1/responses');
    });

    it('holds a native stream for an output guardrail: denied as 446 before it opens, or passed as events made from the answer', async () => {
      const config = (words: string[]) => ({ provider: 'openai', api_key: 'sk-upstream', custom_host: fake.url, output_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words, operator: 'none' } }], actions: { deny: true, hold_stream: true } }] });
      const send = (words: string[]) =>
        app.http
          .post('/v1/responses')
          .set({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config(words)) })
          .send({ model: 'gpt-4o', input: 'hold me', stream: true, tools: [{ type: 'web_search' }] });
      const denied = await send(['said']);
      assert.equal(denied.status, 446);
      assert.equal(fake.requests.at(-1)!.path, '/v1/responses');
      const passed = await send(['nothing-like-this']);
      assert.equal(passed.status, 200);
      const events = passed.text.split('\n\n').filter((block) => block.includes('data: ')).map((block) => JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as { type: string; response?: { output_text?: string; output: Array<{ type: string; content?: Array<{ text: string }> }> } });
      assert.deepEqual(events.slice(0, 2).map((event) => event.type), ['response.created', 'response.in_progress']);
      const final = events.at(-1)!;
      assert.equal(final.type, 'response.completed');
      assert.equal(final.response!.output.find((item) => item.type === 'message')!.content![0]!.text, 'You said: hold me');
    });

    it('answers 400 naming the provider when the host takes no documents', async () => {
      const refused = await post('groq', { model: 'llama-3.3-70b-versatile', input: [{ role: 'user', content: [{ type: 'input_file', file_data: PDF.toString('base64') }] }] });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.message, /^groq does not take documents/);
    });
  });
