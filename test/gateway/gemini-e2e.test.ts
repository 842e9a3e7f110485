/**
 * End to end through gw with the official `openai` client, in custom host mode against fakes on
 * 127.0.0.1 (trusted through TRUSTED_CUSTOM_HOSTS): `google` (AI Studio) and `vertex-ai` (cloud2
 * headers) with Gemini models, and `vertex-ai` with a Claude model through rawPredict.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeGemini, type FakeGeminiReply } from '../helpers/fake-gemini.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

async function readStream(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  let args = '';
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  return { text, args, finish, usage };
}

for (const engine of fullEngines()) describe(`gw chat completions over google and vertex-ai (${engine.name})`, () => {
  let app: TestApp;
  let gemini: RecordingServer;
  let anthropic: RecordingServer;
  let nextGemini: FakeGeminiReply;
  let nextClaude: FakeAnthropicReply;

  const client = (provider: string, apiKey: string, headers: Record<string, string> = {}) =>
    new OpenAI({
      baseURL: `${app.url}/v1`,
      apiKey,
      maxRetries: 0,
      defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': provider, 'x-gw-custom-host': gemini.url, ...headers },
    });
  const vertexHeaders = { 'x-gw-cloud2-project-id': 'e2e-project', 'x-gw-cloud2-region': 'europe-west4' };

  before(async () => {
    gemini = await startFakeGemini(() => nextGemini);
    anthropic = await startFakeAnthropic(() => nextClaude);
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
  });
  after(async () => {
    await app?.close();
    await gemini?.close();
    await anthropic?.close();
  });

  it('google: answers a plain request, with the key as x-goog-api-key', async () => {
    nextGemini = { kind: 'response', candidates: [{ parts: [{ text: 'Bonjour!' }], finishReason: 'STOP' }], usage: { promptTokenCount: 6, candidatesTokenCount: 2, totalTokenCount: 8 } };
    const completion = await client('google', 'gemini-e2e-key').chat.completions.create({ model: 'gemini-2.5-flash', max_completion_tokens: 64, messages: [{ role: 'system', content: 'French only.' }, { role: 'user', content: 'Hello' }] });
    const received = gemini.received.at(-1)!;
    assert.equal(received.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(received.headers['x-goog-api-key'], 'gemini-e2e-key');
    assert.equal(received.headers.authorization, undefined);
    assert.deepEqual(received.body, { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }], systemInstruction: { parts: [{ text: 'French only.' }] }, generationConfig: { maxOutputTokens: 64 } });
    assert.equal(completion.choices[0]!.message.content, 'Bonjour!');
    assert.deepEqual(completion.usage, { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 });
  });

  it('google: streams text with the usage chunk', async () => {
    nextGemini = { kind: 'response', candidates: [{ parts: [{ text: 'one two three' }], finishReason: 'STOP' }], usage: { promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 7 } };
    const result = await readStream(
      await client('google', 'gemini-e2e-key').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Count' }], stream: true, stream_options: { include_usage: true } }),
    );
    assert.match(gemini.received.at(-1)!.path, /:streamGenerateContent\?alt=sse$/);
    assert.deepEqual({ text: result.text, finish: result.finish, total: result.usage?.total_tokens }, { text: 'one two three', finish: 'stop', total: 7 });
  });

  it('google: a tool-call round trip names the function in the functionResponse', async () => {
    nextGemini = { kind: 'response', candidates: [{ parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }], finishReason: 'STOP' }] };
    const google = client('google', 'gemini-e2e-key');
    const first = await google.chat.completions.create({ model: 'gemini-2.5-flash', tools, messages: [{ role: 'user', content: 'Weather?' }] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    nextGemini = { kind: 'response', candidates: [{ parts: [{ text: 'Sunny.' }], finishReason: 'STOP' }] };
    const second = await google.chat.completions.create({
      model: 'gemini-2.5-flash',
      tools,
      messages: [{ role: 'user', content: 'Weather?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
    });
    assert.equal(second.choices[0]!.message.content, 'Sunny.');
    const contents = gemini.received.at(-1)!.body?.contents as unknown[];
    assert.deepEqual(contents.slice(1), [
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
    ]);
  });

  it('google: ends the stream with an error when Gemini fails mid-stream', async () => {
    nextGemini = { kind: 'response', candidates: [{ parts: [{ text: 'one two three' }], finishReason: 'STOP' }], errorAfterEvents: 1 };
    const stream = await client('google', 'gemini-e2e-key').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Count' }], stream: true });
    await assert.rejects(readStream(stream), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.match(error.message, /overloaded/);
      return true;
    });
  });

  it('google: keeps the upstream status and message of a Gemini error', async () => {
    nextGemini = { kind: 'error', status: 400, statusText: 'INVALID_ARGUMENT', message: 'API key not valid.' };
    await assert.rejects(client('google', 'bad-key').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 400);
      assert.match(error.message, /API key not valid/);
      return true;
    });
  });

  it('google: proxies the models list from GET /v1beta/models', async () => {
    const page = await client('google', 'gemini-e2e-key').models.list();
    assert.deepEqual(page.data.map((model) => model.id), ['gemini-2.5-flash']);
    assert.equal(gemini.received.at(-1)!.headers['x-goog-api-key'], 'gemini-e2e-key');
  });

  it('vertex-ai: a Gemini model on the project and region of the cloud2 headers, token as Bearer', async () => {
    nextGemini = { kind: 'response', candidates: [{ parts: [{ text: 'Hallo!' }], finishReason: 'STOP' }] };
    const completion = await client('vertex-ai', 'ya29.e2e-token', { ...vertexHeaders, 'X-Cloud2-LLM-Request-Type': 'shared' }).chat.completions.create({
      model: 'gemini-2.5-pro',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const received = gemini.received.at(-1)!;
    assert.equal(received.path, '/v1/projects/e2e-project/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent');
    assert.equal(received.headers.authorization, 'Bearer ya29.e2e-token');
    assert.equal(received.headers['x-vertex-ai-llm-request-type'], 'shared');
    assert.equal(completion.choices[0]!.message.content, 'Hallo!');
  });

  it('vertex-ai: a Claude model streams through streamRawPredict with anthropic_version', async () => {
    nextClaude = { kind: 'message', message: { content: [{ type: 'text', text: 'one two' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 2 } } };
    const result = await readStream(
      await client('vertex-ai', 'ya29.e2e-token', { ...vertexHeaders, 'x-gw-custom-host': anthropic.url }).chat.completions.create({
        model: 'claude-sonnet-4-5@20250929',
        messages: [{ role: 'user', content: 'Count' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const received = anthropic.received.at(-1)!;
    assert.equal(received.path, '/v1/projects/e2e-project/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    assert.equal(received.body?.anthropic_version, 'vertex-2023-10-16');
    assert.equal(received.body?.model, undefined);
    assert.deepEqual({ text: result.text, finish: result.finish, total: result.usage?.total_tokens }, { text: 'one two', finish: 'stop', total: 5 });
  });

  it('vertex-ai: a missing project id is a 400 naming its header', async () => {
    await assert.rejects(
      client('vertex-ai', 'ya29.e2e-token', { 'x-gw-cloud2-region': 'europe-west4' }).chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal((error.error as { param?: string }).param, 'x-gw-cloud2-project-id');
        return true;
      },
    );
  });
});
