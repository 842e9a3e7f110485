/**
 * gw's /v1/responses held to the Open Responses specification, as its compliance suite holds a
 * server: the suite's kinds of request (a message item, assistant history with phase labels, a
 * system message, a function tool, an image, a multi-turn conversation), each sent as JSON and
 * streamed, over an OpenAI-type and an Anthropic-type upstream fake. Every Response object validates
 * against the specification's ResponseResource schema, every stream event against the schema of its
 * type, with sequence numbers in order and the SSE event name equal to the data's type.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import type { RecordedRequest, RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openResponsesEventErrors, openResponsesResponseErrors } from './open-responses-schema.js';

type Json = Record<string, unknown>;
type Event = { type: string; sequence_number: number; response?: Json; [key: string]: unknown };

/** A 1x1 PNG, as the suite's image request sends a small inline image. */
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'The current weather for a place',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

/** The suite's kinds of request, written for gw; each is also sent with stream: true. */
const REQUESTS: Array<{ name: string; body: (model: string) => Json; outputType: string }> = [
  { name: 'a message item', outputType: 'message', body: (model) => ({ model, input: [{ type: 'message', role: 'user', content: 'Say hello in three words.' }] }) },
  {
    name: 'assistant history with phase labels',
    outputType: 'message',
    body: (model) => ({
      model,
      input: [
        { type: 'message', role: 'assistant', phase: 'commentary', content: 'Looking up the number.' },
        { type: 'message', role: 'assistant', phase: 'final_answer', content: 'The number is four.' },
        { type: 'message', role: 'user', content: 'Repeat the number.' },
      ],
    }),
  },
  {
    name: 'a system message',
    outputType: 'message',
    body: (model) => ({ model, input: [{ type: 'message', role: 'system', content: 'Answer as a sailor.' }, { type: 'message', role: 'user', content: 'Greet me.' }] }),
  },
  { name: 'a function tool', outputType: 'function_call', body: (model) => ({ model, input: [{ type: 'message', role: 'user', content: 'Weather in Paris?' }], tools: [weather] }) },
  {
    name: 'an image',
    outputType: 'message',
    body: (model) => ({ model, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: PNG }] }] }),
  },
  {
    name: 'a multi-turn conversation',
    outputType: 'message',
    body: (model) => ({
      model,
      input: [
        { type: 'message', role: 'user', content: 'My name is Ada.' },
        { type: 'message', role: 'assistant', content: 'Hello Ada.' },
        { type: 'message', role: 'user', content: 'What is my name?' },
      ],
    }),
  },
];

/** Reads a Responses SSE body: each event's name line and data, checked against each other. */
function eventsOf(text: string): Event[] {
  const events: Event[] = [];
  for (const block of text.split('\n\n')) {
    const name = /^event: (.+)$/m.exec(block)?.[1];
    const data = /^data: (.+)$/m.exec(block)?.[1];
    if (!data) continue;
    const event = JSON.parse(data) as Event;
    assert.equal(name, event.type, 'the SSE event name is the data type');
    events.push(event);
  }
  return events;
}

function assertValidStream(events: Event[]): Json {
  assert.ok(events.length > 0, 'stream events');
  events.forEach((event, index) => {
    assert.equal(openResponsesEventErrors(event), '', `${event.type}: ${JSON.stringify(event).slice(0, 400)}`);
    assert.equal(event.sequence_number, index);
  });
  assert.deepEqual(events.slice(0, 2).map((event) => event.type), ['response.created', 'response.in_progress']);
  for (const event of events.slice(0, 2)) assert.ok('usage' in event.response!, 'snapshots carry usage');
  const last = events.at(-1)!;
  assert.equal(last.type, 'response.completed');
  return last.response!;
}

interface Upstream {
  name: string;
  headers: Record<string, string>;
  model: string;
  start(): Promise<{ close(): Promise<void>; headers: Record<string, string> }>;
}

/** The Anthropic fake answers like the OpenAI fake: a tool call when tools are offered and no result is in yet, else text. */
function anthropicScript(request: RecordedRequest): FakeAnthropicReply {
  const body = request.body as { tools?: Array<{ name: string }>; messages?: Array<{ content: unknown }> };
  const last = body.messages?.at(-1)?.content;
  const answered = Array.isArray(last) && last.some((block: { type?: string }) => block.type === 'tool_result');
  const tool = body.tools?.[0];
  if (tool && !answered) return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_01', name: tool.name, input: { location: 'Paris' } }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 8 } } };
  return { kind: 'message', message: { content: [{ type: 'text', text: 'Hello there, friend.' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 5 } } };
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'an OpenAI-type provider',
    headers: { 'x-gw-provider': 'openai', authorization: 'Bearer sk-upstream' },
    model: 'gpt-4o',
    async start() {
      const fake: FakeOpenAi = await startFakeOpenAi();
      return { close: () => fake.close(), headers: { 'x-gw-custom-host': fake.url } };
    },
  },
  {
    name: 'an Anthropic-type provider',
    headers: { 'x-gw-provider': 'anthropic', authorization: 'Bearer sk-ant-upstream' },
    model: 'claude-sonnet-4-5',
    async start() {
      const fake: RecordingServer = await startFakeAnthropic(anthropicScript);
      return { close: () => fake.close(), headers: { 'x-gw-custom-host': fake.url } };
    },
  },
];

for (const engine of fullEngines())
  for (const upstream of UPSTREAMS)
    describe(`Open Responses schemas over ${upstream.name} (${engine.name})`, () => {
      let app: TestApp;
      let fake: Awaited<ReturnType<Upstream['start']>>;
      const post = (body: Json) =>
        fetch(`${app.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY, ...upstream.headers, ...fake.headers },
          body: JSON.stringify(body),
        });

      before(async () => {
        fake = await upstream.start();
        app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      });
      after(async () => {
        await app?.close();
        await fake?.close();
      });

      for (const request of REQUESTS) {
        it(`answers ${request.name} with a valid ResponseResource`, async () => {
          const answer = await post(request.body(upstream.model));
          const response = (await answer.json()) as Json & { output: Array<{ type: string }>; status: string };
          assert.equal(answer.status, 200, JSON.stringify(response));
          assert.equal(openResponsesResponseErrors(response), '', JSON.stringify(response));
          assert.equal(response.status, 'completed');
          assert.ok(response.output.some((item) => item.type === request.outputType), `an output item of type ${request.outputType}`);
        });

        it(`streams ${request.name} as valid events`, async () => {
          const answer = await post({ ...request.body(upstream.model), stream: true });
          assert.equal(answer.status, 200);
          assert.match(answer.headers.get('content-type') ?? '', /text\/event-stream/);
          const final = assertValidStream(eventsOf(await answer.text()));
          assert.equal(openResponsesResponseErrors(final), '');
          assert.ok((final.output as Array<{ type: string }>).some((item) => item.type === request.outputType));
        });
      }

      it('echoes function tools with every key the schema requires, strict included', async () => {
        const answer = await post(REQUESTS.find((request) => request.outputType === 'function_call')!.body(upstream.model));
        const response = (await answer.json()) as { tools: Json[] };
        assert.deepEqual(response.tools, [{ ...weather, strict: null }]);
      });

      it('refuses a stream before it opens in the error shape (a previous_response_id that does not exist)', async () => {
        const refused = await post({ model: upstream.model, input: 'hi', stream: true, previous_response_id: 'resp_missing' });
        assert.equal(refused.status, 400);
        const body = (await refused.json()) as { error: { param: string } };
        assert.equal(body.error.param, 'previous_response_id');
      });
    });
