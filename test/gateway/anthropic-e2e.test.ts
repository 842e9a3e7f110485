/**
 * End to end through gw: the official `openai` client calls gw's /v1/chat/completions in custom
 * host mode with `x-gw-provider: anthropic`; gw speaks the Messages API to the fake Anthropic on
 * 127.0.0.1 (trusted through TRUSTED_CUSTOM_HOSTS).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const MODEL = 'claude-sonnet-4-5';
const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const toolReply: FakeAnthropicReply = {
  kind: 'message',
  message: { content: [{ type: 'tool_use', id: 'toolu_e2e', name: 'get_weather', input: { city: 'Paris' } }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 9 } },
};

for (const engine of fullEngines()) describe(`gw chat completions over anthropic (${engine.name})`, () => {
  let app: TestApp;
  let fake: RecordingServer;
  let next: FakeAnthropicReply;
  let client: OpenAI;

  before(async () => {
    fake = await startFakeAnthropic(() => next);
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    client = new OpenAI({
      baseURL: `${app.url}/v1`,
      apiKey: 'sk-ant-e2e',
      maxRetries: 0,
      defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'anthropic', 'x-gw-custom-host': fake.url },
    });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('answers a plain request, with the key as x-api-key and a default max_tokens', async () => {
    next = { kind: 'message', message: { content: [{ type: 'text', text: 'Bonjour!' }], stop_reason: 'end_turn', usage: { input_tokens: 7, output_tokens: 2, cache_read_input_tokens: 3 } } };
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'French only.' }, { role: 'user', content: 'Hello' }] });
    const received = fake.received.at(-1)!;
    assert.equal(received.path, '/v1/messages');
    assert.equal(received.headers['x-api-key'], 'sk-ant-e2e');
    assert.equal(received.headers['anthropic-version'], '2023-06-01');
    assert.equal(received.headers.authorization, undefined);
    assert.equal(received.headers['x-gw-api-key'], undefined);
    assert.deepEqual(received.body, { model: MODEL, system: [{ type: 'text', text: 'French only.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }], max_tokens: 4096 });
    assert.equal(completion.choices[0]!.message.content, 'Bonjour!');
    assert.equal(completion.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(completion.usage, { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_tokens_details: { cached_tokens: 3, cache_creation_tokens: 0 } });
  });

  it('streams text with the usage chunk', async () => {
    next = { kind: 'message', message: { content: [{ type: 'text', text: 'one two three' }], stop_reason: 'end_turn', usage: { input_tokens: 4, output_tokens: 3 } } };
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Count' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    assert.equal(fake.received.at(-1)!.body?.stream, true);
    assert.equal(text, 'one two three');
    assert.equal(finish, 'stop');
    assert.equal(usage?.total_tokens, 7);
  });

  it('sends thinking only when the config turns strict_openai_compliance off, and then returns the thinking', async () => {
    const thinkingReply: FakeAnthropicReply = {
      kind: 'message',
      message: { content: [{ type: 'thinking', thinking: 'Greeting back.', signature: 'sig-1' }, { type: 'text', text: 'Hi!' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 6 } },
    };
    const request = { model: MODEL, max_completion_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hello' }] };
    const send = (config: Record<string, unknown>) =>
      app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-e2e', custom_host: fake.url, ...config }) }).send(request);

    next = thinkingReply;
    const strict = await send({});
    assert.equal(strict.status, 200, strict.text);
    assert.equal(fake.received.at(-1)!.body?.thinking, undefined, 'strict (the default): thinking is not sent');
    assert.equal(strict.body.choices[0].message.content, 'Hi!');
    assert.equal(strict.body.choices[0].message.reasoning_content, undefined);

    next = thinkingReply;
    const open = await send({ strict_openai_compliance: false });
    assert.equal(open.status, 200, open.text);
    assert.deepEqual(fake.received.at(-1)!.body?.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(open.body.choices[0].message.content, 'Hi!');
    assert.equal(open.body.choices[0].message.reasoning_content, 'Greeting back.');
  });

  it('runs a tool-call round trip: tool_use out, tool_result back in', async () => {
    next = toolReply;
    const first = await client.chat.completions.create({ model: MODEL, tools, tool_choice: 'required', messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(call.type === 'function' && call.function.arguments, '{"city":"Paris"}');
    assert.deepEqual(fake.received.at(-1)!.body?.tool_choice, { type: 'any' });

    next = { kind: 'message', message: { content: [{ type: 'text', text: 'Sunny, 21°C.' }], stop_reason: 'end_turn' } };
    const second = await client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny","c":21}' }],
    });
    assert.equal(second.choices[0]!.message.content, 'Sunny, 21°C.');
    const turns = fake.received.at(-1)!.body?.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(turns[1]!.content, [{ type: 'tool_use', id: 'toolu_e2e', name: 'get_weather', input: { city: 'Paris' } }]);
    assert.deepEqual(turns[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e2e', content: '{"sky":"sunny","c":21}' }] });
  });

  it('streams a tool call whose arguments the client reassembles', async () => {
    next = toolReply;
    const stream = await client.chat.completions.create({ model: MODEL, tools, messages: [{ role: 'user', content: 'Weather?' }], stream: true });
    let name = '';
    let args = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.tool_calls?.[0];
      name += delta?.function?.name ?? '';
      args += delta?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(name, 'get_weather');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
    assert.equal(finish, 'tool_calls');
  });

  it('ends the stream with an error when Anthropic sends an error event mid-stream', async () => {
    next = { kind: 'message', message: { content: [{ type: 'text', text: 'one two three' }], stop_reason: 'end_turn' }, errorAfterEvents: 4 };
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Count' }], stream: true });
    await assert.rejects(
      async () => {
        for await (const _chunk of stream) {
          // Read until the error event.
        }
      },
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError, String(error));
        assert.match(error.message, /Overloaded/);
        return true;
      },
    );
  });

  it('keeps the upstream status and message of an Anthropic error', async () => {
    next = { kind: 'error', status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit' };
    await assert.rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /exceeded your rate limit/);
      return true;
    });
  });

  it('proxies the models list from GET /v1/models', async () => {
    const page = await client.models.list();
    assert.deepEqual(page.data.map((model) => model.id), ['claude-sonnet-4-5']);
    assert.match(fake.received.at(-1)!.path, /^\/v1\/models/);
    assert.equal(fake.received.at(-1)!.headers['x-api-key'], 'sk-ant-e2e');
  });

  it('refuses n > 1 with a 400 before any upstream call', async () => {
    const calls = fake.received.length;
    await assert.rejects(client.chat.completions.create({ model: MODEL, n: 2, messages: [{ role: 'user', content: 'Hello' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal((error.error as { param?: string }).param, 'n');
      return true;
    });
    assert.equal(fake.received.length, calls);
  });
});
