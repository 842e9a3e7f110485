/**
 * The Messages door over a saved anthropic provider, with the official `@anthropic-ai/sdk` as the
 * client: the body and Anthropic's headers reach the upstream as the client sent them (only the
 * credential replaced), the answer and the stream come back as the upstream sent them, usage
 * (cache reads and writes included) is logged and priced, count_tokens asks the upstream, and
 * every error answers in Anthropic's shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { fullEngines } from '../helpers/engines.js';
import { anthropicStreamEvents, startFakeAnthropic, type FakeAnthropicMessage, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import type { RecordingServer } from '../helpers/recording-server.js';

const MODEL = 'claude-sonnet-4-5';
const BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27';
const weather = { name: 'get_weather', description: 'The weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const thinkingAnswer: FakeAnthropicMessage = {
  content: [
    { type: 'thinking', thinking: 'They want the weather.', signature: 'sig-1' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 20, output_tokens: 9, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
};

for (const engine of fullEngines()) describe(`Messages door over a saved anthropic provider (${engine.name})`, () => {
  let gw: GatewayApp;
  let fake: RecordingServer;
  let client: Anthropic;
  const replies: FakeAnthropicReply[] = [];
  const sent = () => fake.received.at(-1)!;

  before(async () => {
    fake = await startFakeAnthropic(() => replies.shift() ?? { kind: 'message', message: { content: [{ type: 'text', text: 'Hello from Claude' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
    gw = await startGatewayApp({ engine });
    const saved = await gw.app.http
      .post('/v1/providers')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant-saved', configurations: { custom_host: fake.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    client = new Anthropic({ apiKey: gw.app.adminKey, baseURL: gw.app.url, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('sends the body and the Anthropic headers as they came, with the provider key in place of the gw key, and answers as the upstream did', async () => {
    replies.push({ kind: 'message', message: thinkingAnswer });
    const before = gw.logs.length;
    const body = {
      model: `@claude/${MODEL}`,
      max_tokens: 4000,
      system: [{ type: 'text' as const, text: 'You are Claude Code.', cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Weather in Oslo?', cache_control: { type: 'ephemeral' as const } }] }],
      tools: [weather],
      thinking: { type: 'enabled' as const, budget_tokens: 8000 },
      metadata: { user_id: 'user-1' },
      // A beta field gw has never heard of passes as it is.
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    };
    const { data: message, response } = await client.beta.messages.create(body as never, { headers: { 'anthropic-beta': BETAS } }).withResponse();
    const upstream = sent();
    assert.equal(upstream.path, '/v1/messages');
    assert.deepEqual(upstream.body, { ...body, model: MODEL });
    assert.equal(upstream.headers['x-api-key'], 'sk-ant-saved');
    assert.equal(upstream.headers['anthropic-version'], '2023-06-01');
    assert.equal(upstream.headers['anthropic-beta'], BETAS);
    assert.equal(upstream.headers.authorization, undefined);
    const answer = message as unknown as Anthropic.Message;
    assert.equal(answer.id, 'msg_fake_01');
    assert.deepEqual(answer.content, thinkingAnswer.content);
    assert.equal(answer.stop_reason, 'tool_use');
    assert.equal(answer.usage.cache_read_input_tokens, 1000);
    assert.equal(response.headers.get('x-gw-provider'), 'anthropic');
    assert.ok(response.headers.get('x-gw-trace-id'));

    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.endpoint, 'messages');
    assert.equal(entry.provider, 'anthropic');
    assert.equal(entry.model, MODEL);
    assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [1120, 9]);
    assert.equal(entry.trace_id, response.headers.get('x-gw-trace-id'));
    // The catalog's claude-sonnet-4-5 rates (USD per million tokens): input 3, cache read 0.3, cache write 3.75, output 15.
    assert.equal(entry.cost, ((20 * 3 + 1000 * 0.3 + 100 * 3.75 + 9 * 15) * 1000) / 1e9);
  });

  it('relays the stream byte for byte, and logs its usage', async () => {
    replies.push({ kind: 'message', message: thinkingAnswer });
    const before = gw.logs.length;
    const res = await fetch(`${gw.app.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.app.adminKey}`, 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `@claude/${MODEL}`, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const expected = anthropicStreamEvents(thinkingAnswer, MODEL)
      .map((event) => `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`)
      .join('');
    assert.equal(await res.text(), expected);
    assert.equal(sent().headers['anthropic-beta'], BETAS);
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.endpoint, 'messages');
    assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [1120, 9]);
  });

  it('holds the stream for an output guardrail with hold_stream: a deny answers 446 before any byte, a pass streams the answer', async () => {
    const send = (words: string[]) => {
      replies.push({ kind: 'message', message: { content: [{ type: 'text', text: 'Hello from Claude' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
      const config = { virtual_key: 'claude', output_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words, operator: 'none' } }], actions: { deny: true, hold_stream: true } }] };
      return fetch(`${gw.app.url}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.app.adminKey}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-gw-config': JSON.stringify(config) },
        body: JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
      });
    };
    const denied = await send(['Claude']);
    assert.equal(denied.status, 446, await denied.clone().text());
    assert.match(denied.headers.get('content-type') ?? '', /^application\/json/);
    await denied.text();
    const passed = await send(['nothing-like-this']);
    assert.equal(passed.status, 200);
    const text = await passed.text();
    assert.match(text, /event: message_stop/);
    assert.match(text, /Hello from Claude/);
  });

  it('streams through the SDK: text, thinking and tool input as the SDK assembles them', async () => {
    replies.push({ kind: 'message', message: thinkingAnswer });
    const stream = client.messages.stream({ model: `@claude/${MODEL}`, max_tokens: 1000, messages: [{ role: 'user', content: 'Weather?' }], tools: [weather], thinking: { type: 'enabled', budget_tokens: 1024 } });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, thinkingAnswer.content);
    assert.equal(final.usage.output_tokens, 9);
  });

  it("applies a config's override_params of model, max_tokens and temperature to the body, the rest as sent", async () => {
    const config = JSON.stringify({ provider: '@claude', override_params: { model: 'claude-opus-4-1', max_tokens: 77, temperature: 0.1 } });
    const body = { model: MODEL, max_tokens: 500, top_k: 3, messages: [{ role: 'user' as const, content: 'Hi' }] };
    await client.messages.create(body, { headers: { 'x-gw-config': config } });
    assert.deepEqual(sent().body, { ...body, model: 'claude-opus-4-1', max_tokens: 77, temperature: 0.1 });
  });

  it('counts tokens with the upstream counter', async () => {
    const { data, response } = await client.messages.countTokens({ model: `@claude/${MODEL}`, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    assert.equal(data.input_tokens, 1001);
    assert.equal(response.headers.get('x-gw-token-count'), 'native');
    assert.equal(sent().path, '/v1/messages/count_tokens');
    assert.equal(sent().body?.model, MODEL);
    assert.equal(sent().headers['x-api-key'], 'sk-ant-saved');
  });

  it('answers the upstream error in its own type and status', async () => {
    replies.push({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    await assert.rejects(client.messages.create({ model: `@claude/${MODEL}`, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.APIError, String(error));
      assert.equal(error.status, 529);
      assert.deepEqual((error.error as { type: string; error: { type: string } }).error.type, 'overloaded_error');
      return true;
    });
  });

  it('answers an upstream refusal of a stream (before it opened) as a JSON error with its status', async () => {
    replies.push({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    const stream = client.messages.stream({ model: `@claude/${MODEL}`, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    await assert.rejects(stream.finalMessage(), (error: unknown) => {
      assert.ok(error instanceof Anthropic.APIError, String(error));
      assert.equal(error.status, 529);
      assert.equal((error.error as { error: { type: string } }).error.type, 'overloaded_error');
      return true;
    });
  });

  it('masks the request\'s provider key in an upstream error it echoes, keeping the Anthropic shape', async () => {
    const secret = 'sk-ant-inline-0123456789';
    replies.push({ kind: 'error', status: 401, type: 'authentication_error', message: `invalid x-api-key ${secret}` });
    const inline = new Anthropic({ apiKey: gw.app.adminKey, authToken: secret, baseURL: gw.app.url, maxRetries: 0, defaultHeaders: { 'x-gw-provider': 'anthropic', 'x-gw-custom-host': fake.url } });
    await assert.rejects(inline.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
      assert.equal(sent().headers['x-api-key'], secret);
      const body = error.error as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'authentication_error');
      assert.doesNotMatch(JSON.stringify(body), new RegExp(secret));
      return true;
    });
  });

  it('ends a stream that fails midway with the upstream error event', async () => {
    replies.push({ kind: 'message', message: thinkingAnswer, errorAfterEvents: 3 });
    const stream = client.messages.stream({ model: `@claude/${MODEL}`, max_tokens: 1000, messages: [{ role: 'user', content: 'Weather?' }] });
    await assert.rejects(stream.finalMessage(), (error: unknown) => {
      assert.match(String((error as Error).message), /overloaded_error|Overloaded/);
      return true;
    });
  });
});
