/**
 * The Messages door over saved bedrock and google (Gemini) providers, with the official
 * `@anthropic-ai/sdk` as the client. Claude on Bedrock takes the client's Anthropic body through
 * InvokeModel (and InvokeModelWithResponseStream, whose chunk events gw turns back into Anthropic's
 * server-sent events) and CountTokens; Claude on Vertex AI takes it through rawPredict and
 * streamRawPredict (and count-tokens); Gemini gets the request translated through chat.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { fullEngines } from '../helpers/engines.js';
import { anthropicStreamEvents, startFakeAnthropic, type FakeAnthropicMessage, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock } from '../helpers/fake-bedrock.js';
import { startFakeGemini, type FakeGeminiReply } from '../helpers/fake-gemini.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import type { RecordingServer } from '../helpers/recording-server.js';

const ACCESS_KEY_ID = 'AKIDMESSAGESBEDROCK';
const SECRET = 'messages-bedrock-secret';
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const weather = { name: 'get_weather', description: 'The weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const answer: FakeAnthropicMessage = {
  content: [
    { type: 'thinking', thinking: 'Weather, then.', signature: 'sig-b' },
    { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Lima' } },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 500, cache_creation_input_tokens: 0 },
};

function invokeMessage(message: FakeAnthropicMessage) {
  return { id: 'msg_bedrock_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: message.content, stop_reason: message.stop_reason, stop_sequence: null, usage: message.usage };
}

function chunkFrames(message: FakeAnthropicMessage) {
  return anthropicStreamEvents(message, 'claude-sonnet-4-5-20250929').map((event) => ({ event: 'chunk', payload: { bytes: Buffer.from(JSON.stringify(event.data)).toString('base64') } }));
}

for (const engine of fullEngines()) describe(`Messages door over a saved bedrock provider (${engine.name})`, () => {
  let gw: GatewayApp;
  let fake: FakeBedrock;
  let next: BedrockBehaviour;
  let client: Anthropic;
  const sent = () => fake.received.at(-1)!;

  before(async () => {
    fake = await startFakeBedrock({ credentials: { [ACCESS_KEY_ID]: SECRET }, script: () => next });
    gw = await startGatewayApp({ engine });
    const saved = await gw.app.http
      .post('/v1/providers')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'Bedrock', slug: 'br', ai_provider_id: 'bedrock', configurations: { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET, aws_region: 'us-east-1', custom_host: fake.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    client = new Anthropic({ apiKey: gw.app.adminKey, baseURL: gw.app.url, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('sends Claude the Anthropic body through InvokeModel, signed, with the betas in the body', async () => {
    next = { kind: 'invoke', body: invokeMessage(answer) };
    const before = gw.logs.length;
    const message = await client.messages.create(
      { model: `@br/${CLAUDE}`, max_tokens: 1000, system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'Weather in Lima?' }], tools: [weather] },
      { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' } },
    );
    assert.equal(sent().operation, 'invoke');
    assert.equal(sent().modelId, CLAUDE);
    assert.equal(sent().signature.valid, true, sent().signature.reason);
    assert.deepEqual(sent().body, {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1000,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
      tools: [weather],
      anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'],
    });
    assert.deepEqual(message.content, answer.content);
    assert.equal(message.id, 'msg_bedrock_1');
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.deepEqual([entry.endpoint, entry.provider, entry.prompt_tokens, entry.completion_tokens], ['messages', 'bedrock', 530, 12]);
  });

  it('streams Claude through InvokeModelWithResponseStream as Anthropic events, split frames and all', async () => {
    next = { kind: 'stream', frames: chunkFrames(answer), chunkBytes: 37 };
    const before = gw.logs.length;
    const res = await fetch(`${gw.app.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': gw.app.adminKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: `@br/${CLAUDE}`, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'Weather?' }] }),
    });
    assert.equal(sent().operation, 'invoke-with-response-stream');
    assert.equal(sent().body.stream, undefined);
    const expected = anthropicStreamEvents(answer, 'claude-sonnet-4-5-20250929')
      .map((event) => `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`)
      .join('');
    assert.equal(await res.text(), expected);
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [530, 12]);

    next = { kind: 'stream', frames: chunkFrames(answer) };
    const final = await client.messages.stream({ model: `@br/${CLAUDE}`, max_tokens: 1000, messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
    assert.deepEqual(final.content, answer.content);
  });

  it('ends the stream with an error event when Bedrock sends an exception', async () => {
    next = { kind: 'stream', frames: [...chunkFrames(answer).slice(0, 3), { exception: 'throttlingException', message: 'Too many tokens' }] };
    const stream = client.messages.stream({ model: `@br/${CLAUDE}`, max_tokens: 1000, messages: [{ role: 'user', content: 'Weather?' }] });
    await assert.rejects(stream.finalMessage(), /rate_limit_error|Too many tokens/);
  });

  it('counts tokens with Bedrock CountTokens', async () => {
    const { data, response } = await client.messages.countTokens({ model: `@br/${CLAUDE}`, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    assert.equal(data.input_tokens, 2000);
    assert.equal(response.headers.get('x-gw-token-count'), 'native');
    assert.equal(sent().operation, 'count-tokens');
    assert.equal(sent().signature.valid, true, sent().signature.reason);
    const inner = JSON.parse(Buffer.from((sent().body.input as { invokeModel: { body: string } }).invokeModel.body, 'base64').toString()) as Record<string, unknown>;
    assert.deepEqual(inner, { max_tokens: 1, anthropic_version: 'bedrock-2023-05-31', messages: [{ role: 'user', content: 'Hi' }] });
  });
});

for (const engine of fullEngines()) describe(`Messages door over a saved google provider (${engine.name})`, () => {
  let gw: GatewayApp;
  let fake: RecordingServer;
  let client: Anthropic;
  const replies: FakeGeminiReply[] = [];
  const sent = () => fake.received.at(-1)!;

  before(async () => {
    fake = await startFakeGemini(() => replies.shift() ?? { kind: 'response', candidates: [{ parts: [{ text: 'Ciao!' }], finishReason: 'STOP' }], usage: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 } });
    gw = await startGatewayApp({ engine });
    const saved = await gw.app.http
      .post('/v1/providers')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'Gemini', slug: 'gem', ai_provider_id: 'google', key: 'gemini-key', configurations: { custom_host: fake.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    client = new Anthropic({ apiKey: gw.app.adminKey, baseURL: gw.app.url, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('translates a message to generateContent and back, thinking as Gemini thinking', async () => {
    const message = await client.messages.create({ model: '@gem/gemini-2.5-flash', max_tokens: 4000, system: 'Answer in Italian.', messages: [{ role: 'user', content: 'Hello' }], thinking: { type: 'enabled', budget_tokens: 2048 } });
    assert.equal(sent().path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.deepEqual((sent().body?.generationConfig as { thinkingConfig?: unknown }).thinkingConfig, { thinkingBudget: 2048, includeThoughts: true });
    assert.deepEqual(message.content, [{ type: 'text', text: 'Ciao!' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.deepEqual([message.usage.input_tokens, message.usage.output_tokens], [9, 3]);
  });

  it('streams a function call back as a tool_use block, and answers the tool result', async () => {
    replies.push({ kind: 'response', candidates: [{ parts: [{ functionCall: { name: 'get_weather', args: { city: 'Rome' } } }], finishReason: 'STOP' }], usage: { promptTokenCount: 9, candidatesTokenCount: 5, totalTokenCount: 14 } });
    const final = await client.messages.stream({ model: '@gem/gemini-2.5-flash', max_tokens: 100, messages: [{ role: 'user', content: 'Weather in Rome?' }], tools: [weather] }).finalMessage();
    const call = final.content[0] as Anthropic.ToolUseBlock;
    assert.deepEqual([call.type, call.name, call.input], ['tool_use', 'get_weather', { city: 'Rome' }]);
    assert.equal(final.stop_reason, 'tool_use');
    replies.push({ kind: 'response', candidates: [{ parts: [{ text: 'Sunny in Rome.' }], finishReason: 'STOP' }], usage: { promptTokenCount: 20, candidatesTokenCount: 4, totalTokenCount: 24 } });
    const next = await client.messages.create({
      model: '@gem/gemini-2.5-flash',
      max_tokens: 100,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] },
      ],
    });
    assert.deepEqual(next.content, [{ type: 'text', text: 'Sunny in Rome.' }]);
    const contents = sent().body?.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    assert.deepEqual(contents.at(-1)!.parts[0]!.functionResponse && Object.keys(contents.at(-1)!.parts[0]!), ['functionResponse']);
  });
});

for (const engine of fullEngines()) describe(`Messages door over vertex-ai for Claude (${engine.name})`, () => {
  let gw: GatewayApp;
  let fake: RecordingServer;
  let client: Anthropic;
  const replies: FakeAnthropicReply[] = [];
  const sent = () => fake.received.at(-1)!;
  const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';

  before(async () => {
    fake = await startFakeAnthropic(() => replies.shift() ?? { kind: 'message', message: answer });
    gw = await startGatewayApp({ engine });
    // The gw key in x-api-key, the Google access token as Authorization, the cloud2 settings inline.
    client = new Anthropic({
      apiKey: gw.app.adminKey,
      authToken: 'ya29.messages-token',
      baseURL: gw.app.url,
      maxRetries: 0,
      defaultHeaders: { 'x-gw-provider': 'vertex-ai', 'x-gw-custom-host': fake.url, 'x-gw-cloud2-project-id': 'proj', 'x-gw-cloud2-region': 'europe-west4' },
    });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('sends the Anthropic body through rawPredict and relays streamRawPredict as it came', async () => {
    const message = await client.messages.create({ model: VERTEX_MODEL, max_tokens: 500, messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] }, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } });
    assert.equal(sent().path, `/v1/projects/proj/locations/europe-west4/publishers/anthropic/models/${VERTEX_MODEL}:rawPredict`);
    assert.equal(sent().headers.authorization, 'Bearer ya29.messages-token');
    assert.equal(sent().headers['anthropic-beta'], 'context-1m-2025-08-07');
    assert.deepEqual(sent().body, { anthropic_version: 'vertex-2023-10-16', max_tokens: 500, messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
    assert.deepEqual(message.content, answer.content);

    const res = await fetch(`${gw.app.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.app.adminKey, authorization: 'Bearer ya29.messages-token', 'x-gw-provider': 'vertex-ai', 'x-gw-custom-host': fake.url, 'x-gw-cloud2-project-id': 'proj', 'x-gw-cloud2-region': 'europe-west4', 'content-type': 'application/json' },
      body: JSON.stringify({ model: VERTEX_MODEL, max_tokens: 500, stream: true, messages: [{ role: 'user', content: 'Weather?' }] }),
    });
    const text = await res.text();
    assert.equal(sent().path, `/v1/projects/proj/locations/europe-west4/publishers/anthropic/models/${VERTEX_MODEL}:streamRawPredict`);
    assert.equal(sent().body?.stream, true);
    assert.equal(text, anthropicStreamEvents(answer, String(sent().body?.model ?? 'claude-vertex')).map((event) => `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`).join(''));
  });

  it('counts tokens with the count-tokens model', async () => {
    const { data, response } = await client.messages.countTokens({ model: VERTEX_MODEL, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    assert.equal(data.input_tokens, 1001);
    assert.equal(response.headers.get('x-gw-token-count'), 'native');
    assert.equal(sent().path, '/v1/projects/proj/locations/europe-west4/publishers/anthropic/models/count-tokens:rawPredict');
    assert.deepEqual(sent().body, { anthropic_version: 'vertex-2023-10-16', messages: [{ role: 'user', content: 'Hi' }], model: VERTEX_MODEL });
  });
});
