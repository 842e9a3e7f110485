/**
 * The Responses API over Anthropic, Gemini and Bedrock fakes with the official `openai` client:
 * each call is translated to chat, and by the provider's adapter to its own API (Messages,
 * generateContent, Converse), so the same Responses calls work on every provider: text with
 * instructions, function tools round trips, streams, reasoning summaries from thinking.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock } from '../helpers/fake-bedrock.js';
import { startFakeGemini, type FakeGeminiReply } from '../helpers/fake-gemini.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { responseSchemaErrors } from './response-schema.js';

const weather = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };
type Event = { type: string; [key: string]: unknown };

async function collect(stream: AsyncIterable<unknown>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) {
    events.push(event as Event);
    if ((event as Event).response) assert.equal(responseSchemaErrors((event as Event).response), '', (event as Event).type);
  }
  return events;
}

const textOf = (events: Event[]) => events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');

for (const engine of fullEngines()) describe(`Responses API over Anthropic (${engine.name})`, () => {
  let app: TestApp;
  let fake: RecordingServer;
  let client: OpenAI;
  const replies: FakeAnthropicReply[] = [];
  const sent = () => fake.received.at(-1)!;

  before(async () => {
    fake = await startFakeAnthropic(() => replies.shift() ?? { kind: 'message', message: { content: [{ type: 'text', text: 'Hello from Claude' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    client = new OpenAI({ apiKey: 'sk-ant-resp', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'anthropic', 'x-gw-custom-host': fake.url } });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('round-trips a function tool: tool_use as function_call, function_call_output as tool_result', async () => {
    replies.push({ kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 9 } } });
    const first = await client.responses.create({ model: 'claude-sonnet-4-5', instructions: 'Be kind.', input: 'Weather in Oslo?', tools: [weather], tool_choice: 'required' });
    assert.equal(sent().path, '/v1/messages');
    assert.deepEqual(sent().body?.system, [{ type: 'text', text: 'Be kind.' }]);
    assert.deepEqual(sent().body?.tool_choice, { type: 'any' });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    assert.deepEqual([call.type, call.call_id, call.name, JSON.parse(call.arguments)], ['function_call', 'toolu_1', 'get_weather', { city: 'Oslo' }]);
    assert.deepEqual(first.usage, { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 29 });

    replies.push({ kind: 'message', message: { content: [{ type: 'text', text: 'It is 3C in Oslo.' }], stop_reason: 'end_turn', usage: { input_tokens: 30, output_tokens: 6 } } });
    const second = await client.responses.create({ model: 'claude-sonnet-4-5', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'toolu_1', output: '3C' }], tools: [weather] });
    assert.equal(second.output_text, 'It is 3C in Oslo.');
    const messages = sent().body?.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.equal(messages.at(-2)!.content[0]!.type, 'tool_use');
    assert.deepEqual(messages.at(-1), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3C' }] });
  });

  it('streams text from the Messages stream as Responses events', async () => {
    replies.push({ kind: 'message', message: { content: [{ type: 'text', text: 'one two three' }], stop_reason: 'end_turn', usage: { input_tokens: 4, output_tokens: 3 } } });
    const stream = client.responses.stream({ model: 'claude-sonnet-4-5', input: 'Count' });
    const events = await collect(stream);
    const final = await stream.finalResponse();
    assert.equal(sent().body?.stream, true);
    assert.equal(textOf(events), 'one two three');
    assert.equal(final.output_text, 'one two three');
    assert.equal(final.usage?.total_tokens, 7);
    assert.equal(events.at(-1)!.type, 'response.completed');
  });

  it('gives the thinking back as a reasoning summary item, in JSON and streamed (strict_openai_compliance off)', async () => {
    const thinking: FakeAnthropicReply = {
      kind: 'message',
      message: { content: [{ type: 'thinking', thinking: 'Greeting back.', signature: 'sig-1' }, { type: 'text', text: 'Hi!' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 6 } },
    };
    const open = new OpenAI({
      apiKey: ADMIN_KEY,
      baseURL: `${app.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-gw-config': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-resp', custom_host: fake.url, strict_openai_compliance: false }) },
    });
    const request = { model: 'claude-sonnet-4-5', input: 'Hello', max_output_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 } };
    replies.push(thinking);
    const response = await open.responses.create(request as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    assert.deepEqual(sent().body?.thinking, { type: 'enabled', budget_tokens: 1024 });
    const [reasoning, message] = response.output as [OpenAI.Responses.ResponseReasoningItem, OpenAI.Responses.ResponseOutputMessage];
    assert.deepEqual([reasoning.type, reasoning.summary], ['reasoning', [{ type: 'summary_text', text: 'Greeting back.' }]]);
    assert.equal(message.type, 'message');
    assert.equal(response.output_text, 'Hi!');

    replies.push(thinking);
    const stream = open.responses.stream(request as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
    const events = await collect(stream);
    const final = await stream.finalResponse();
    const summary = events.filter((event) => event.type === 'response.reasoning_summary_text.delta').map((event) => event.delta).join('');
    assert.equal(summary, 'Greeting back.');
    assert.deepEqual((final.output[0] as OpenAI.Responses.ResponseReasoningItem).summary, [{ type: 'summary_text', text: 'Greeting back.' }]);
    assert.equal(final.output_text, 'Hi!');
  });

  it('refuses reasoning.effort with 400 in the error shape (Anthropic takes thinking, not reasoning_effort)', async () => {
    await assert.rejects(client.responses.create({ model: 'claude-sonnet-4-5', input: 'Hi', reasoning: { effort: 'low' } }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal((error.error as { param: string }).param, 'reasoning_effort');
      return true;
    });
  });
});

for (const engine of fullEngines()) describe(`Responses API over Gemini (${engine.name})`, () => {
  let app: TestApp;
  let fake: RecordingServer;
  let client: OpenAI;
  const replies: FakeGeminiReply[] = [];

  before(async () => {
    fake = await startFakeGemini(() => replies.shift() ?? { kind: 'response', candidates: [{ parts: [{ text: 'Ciao from Gemini' }], finishReason: 'STOP' }], usage: { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 } });
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    client = new OpenAI({ apiKey: 'gemini-key', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'google', 'x-gw-custom-host': fake.url } });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('answers with instructions as the system instruction and usage mapped', async () => {
    const response = await client.responses.create({ model: 'gemini-2.5-flash', instructions: 'Answer in Italian.', input: 'Hello' });
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.deepEqual(sent.body?.systemInstruction, { parts: [{ text: 'Answer in Italian.' }] });
    assert.equal(response.output_text, 'Ciao from Gemini');
    assert.deepEqual([response.usage?.input_tokens, response.usage?.output_tokens, response.usage?.total_tokens], [8, 3, 11]);
  });

  it('streams a function call and continues with its output', async () => {
    replies.push({ kind: 'response', candidates: [{ parts: [{ functionCall: { name: 'get_weather', args: { city: 'Rome' } } }], finishReason: 'STOP' }], usage: { promptTokenCount: 15, candidatesTokenCount: 6, totalTokenCount: 21 } });
    const stream = client.responses.stream({ model: 'gemini-2.5-flash', input: 'Weather in Rome?', tools: [weather] });
    const events = await collect(stream);
    const final = await stream.finalResponse();
    assert.match(fake.received.at(-1)!.path, /:streamGenerateContent\?alt=sse$/);
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    assert.deepEqual([call.type, call.name, JSON.parse(call.arguments)], ['function_call', 'get_weather', { city: 'Rome' }]);
    assert.ok(events.some((event) => event.type === 'response.function_call_arguments.done'));

    replies.push({ kind: 'response', candidates: [{ parts: [{ text: 'Sole a Roma' }], finishReason: 'STOP' }], usage: { promptTokenCount: 20, candidatesTokenCount: 3, totalTokenCount: 23 } });
    const next = await client.responses.create({ model: 'gemini-2.5-flash', previous_response_id: final.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }], tools: [weather] });
    assert.equal(next.output_text, 'Sole a Roma');
    const contents = fake.received.at(-1)!.body?.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    assert.ok(contents.at(-2)!.parts[0]!.functionCall, JSON.stringify(contents));
    assert.ok(contents.at(-1)!.parts[0]!.functionResponse, JSON.stringify(contents));
  });
});

const ACCESS_KEY_ID = 'AKIDRESPONSES';
const SECRET = 'responses-bedrock-secret';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

for (const engine of fullEngines()) describe(`Responses API over Bedrock (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeBedrock;
  let client: OpenAI;
  const script: BedrockBehaviour[] = [];

  before(async () => {
    fake = await startFakeBedrock({
      credentials: { [ACCESS_KEY_ID]: SECRET },
      script: () =>
        script.shift() ?? {
          kind: 'converse',
          body: { output: { message: { role: 'assistant', content: [{ text: 'Hola' }] } }, stopReason: 'end_turn', usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 }, metrics: { latencyMs: 5 } },
        },
    });
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    const saved = await app.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'Bedrock responses', slug: 'bedrock-resp', ai_provider_id: 'bedrock', configurations: { aws_region: 'eu-west-1', aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET, custom_host: fake.url } });
    assert.ok(saved.status < 300, JSON.stringify(saved.body));
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('answers through Converse, signed, with max_output_tokens as maxTokens', async () => {
    const response = await client.responses.create({ model: `@bedrock-resp/${MODEL}`, instructions: 'Spanish only.', input: 'Hello', max_output_tokens: 50 });
    const received = fake.received.at(-1)!;
    assert.equal(received.signature.valid, true, received.signature.reason);
    assert.equal(received.operation, 'converse');
    assert.deepEqual(received.body, { system: [{ text: 'Spanish only.' }], messages: [{ role: 'user', content: [{ text: 'Hello' }] }], inferenceConfig: { maxTokens: 50 } });
    assert.equal(response.output_text, 'Hola');
    assert.equal(response.usage?.total_tokens, 9);
    assert.equal((await client.responses.retrieve(response.id)).output_text, 'Hola');
  });

  it('streams from ConverseStream as Responses events, an incomplete answer ending response.incomplete', async () => {
    script.push({
      kind: 'stream',
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Uno ' } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'dos' } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        { event: 'messageStop', payload: { stopReason: 'max_tokens' } },
        { event: 'metadata', payload: { usage: { inputTokens: 12, outputTokens: 2, totalTokens: 14 }, metrics: { latencyMs: 5 } } },
      ],
    });
    const stream = await client.responses.create({ model: `@bedrock-resp/${MODEL}`, input: 'Count', max_output_tokens: 2, stream: true });
    const events = await collect(stream);
    assert.equal(fake.received.at(-1)!.operation, 'converse-stream');
    assert.equal(textOf(events), 'Uno dos');
    const last = events.at(-1) as unknown as OpenAI.Responses.ResponseIncompleteEvent;
    assert.equal(last.type, 'response.incomplete');
    assert.deepEqual([last.response.status, last.response.incomplete_details], ['incomplete', { reason: 'max_output_tokens' }]);
    assert.equal(last.response.usage?.total_tokens, 14);
    assert.equal((events[0] as unknown as OpenAI.Responses.ResponseCreatedEvent).response.model, MODEL, 'the saved provider prefix is not the model');
  });
});
