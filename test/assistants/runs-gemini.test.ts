/**
 * Runs executed by gw over a fake Gemini upstream (AI Studio's streamGenerateContent), with the
 * official `openai` client's helpers: a plain answer, a function-tool round trip (functionCall ->
 * requires_action -> functionResponse -> answer, the call streamed as a tool_calls step), and
 * tool_choice / parallel_tool_calls honoured: tool_choice becomes Gemini's functionCallingConfig,
 * and with parallel_tool_calls false gw keeps the model's first call (Gemini has no switch for it).
 * The provider is inline (x-gw-provider: google, the key in Authorization), kept sealed for the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeGemini, type FakeGeminiReply } from '../helpers/fake-gemini.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const clock = { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const text = (value: string, usage = { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 }): FakeGeminiReply => ({
  kind: 'response',
  candidates: [{ parts: [{ text: value }], finishReason: 'STOP' }],
  usage,
});
const calls = (...names: string[]): FakeGeminiReply => ({
  kind: 'response',
  candidates: [{ parts: names.map((name) => ({ functionCall: { name, args: { city: 'Rome' } } })), finishReason: 'STOP' }],
  usage: { promptTokenCount: 15, candidatesTokenCount: 6, totalTokenCount: 21 },
});

for (const engine of fullEngines()) describe(`assistant runs over Gemini (${engine.name})`, () => {
  let app: TestApp;
  let fake: RecordingServer;
  let client: OpenAI;
  const replies: FakeGeminiReply[] = [];

  before(async () => {
    fake = await startFakeGemini(() => replies.shift() ?? text('Ciao from Gemini'));
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    client = new OpenAI({
      apiKey: 'gemini-run-key',
      baseURL: `${app.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'google', 'x-gw-custom-host': fake.url },
    });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  const lastBody = () => fake.received.at(-1)!.body as Record<string, unknown>;

  it('answers a run in text, streamed from Gemini, with its usage on the run', async () => {
    const asst = await client.beta.assistants.create({ model: 'gemini-2.5-flash', instructions: 'Answer in Italian.' });
    replies.push(text('Buongiorno a tutti'));
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hello' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    assert.deepEqual(run.usage, { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 });
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(sent.headers['x-goog-api-key'], 'gemini-run-key');
    assert.deepEqual(lastBody().systemInstruction, { parts: [{ text: 'Answer in Italian.' }] });
    assert.deepEqual(lastBody().contents, [{ role: 'user', parts: [{ text: 'Hello' }] }]);
    const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
    assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'Buongiorno a tutti');
  });

  it('round-trips a function tool: functionCall streamed as a tool_calls step, outputs submitted, the answer polled', async () => {
    const asst = await client.beta.assistants.create({ model: 'gemini-2.5-flash', tools: [weather] });
    replies.push(calls('get_weather'));
    const stream = client.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Weather in Rome?' }] } });
    const created: OpenAI.Beta.Threads.Runs.ToolCall[] = [];
    stream.on('toolCallCreated', (call) => created.push(call));
    const waiting = await stream.finalRun();
    assert.equal(waiting.status, 'requires_action');
    const [call] = waiting.required_action!.submit_tool_outputs.tool_calls;
    assert.equal(call!.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call!.function.arguments), { city: 'Rome' });
    assert.deepEqual(created.map((c) => c.id), [call!.id], 'the call reached the client as a thread.run.step.delta');
    replies.push(text('Sunny, 24C.'));
    const done = await client.beta.threads.runs.submitToolOutputsAndPoll(waiting.id, { thread_id: waiting.thread_id, tool_outputs: [{ tool_call_id: call!.id, output: '24C' }] }, { pollIntervalMs: 20 });
    assert.equal(done.status, 'completed', JSON.stringify(done.last_error));
    assert.deepEqual(done.usage, { prompt_tokens: 23, completion_tokens: 9, total_tokens: 32 });
    assert.deepEqual((lastBody().contents as unknown[]).slice(1), [
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '24C' } } }] },
    ]);
    const [answer] = (await client.beta.threads.messages.list(done.thread_id)).data;
    assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'Sunny, 24C.');
  });

  it('honours tool_choice (functionCallingConfig) and parallel_tool_calls false (the first call only)', async () => {
    const asst = await client.beta.assistants.create({ model: 'gemini-2.5-flash', tools: [weather, clock] });
    replies.push(calls('get_weather', 'get_time'));
    const single = await client.beta.threads.createAndRunPoll(
      { assistant_id: asst.id, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false, thread: { messages: [{ role: 'user', content: 'Rome?' }] } },
      { pollIntervalMs: 20 },
    );
    assert.deepEqual(lastBody().toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    assert.equal(single.status, 'requires_action');
    assert.deepEqual(single.required_action!.submit_tool_outputs.tool_calls.map((c) => c.function.name), ['get_weather']);
    const steps = await client.beta.threads.runs.steps.list(single.id, { thread_id: single.thread_id });
    assert.equal((steps.data[0]!.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls.length, 1);
    await client.beta.threads.runs.cancel(single.id, { thread_id: single.thread_id });

    replies.push(calls('get_weather', 'get_time'));
    const both = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'required', thread: { messages: [{ role: 'user', content: 'Rome?' }] } }, { pollIntervalMs: 20 });
    assert.deepEqual(lastBody().toolConfig, { functionCallingConfig: { mode: 'ANY' } });
    assert.deepEqual(both.required_action!.submit_tool_outputs.tool_calls.map((c) => c.function.name), ['get_weather', 'get_time']);
    await client.beta.threads.runs.cancel(both.id, { thread_id: both.thread_id });

    replies.push(text('No tools needed.'));
    const none = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'none', thread: { messages: [{ role: 'user', content: 'Hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(none.status, 'completed');
    assert.deepEqual(lastBody().toolConfig, { functionCallingConfig: { mode: 'NONE' } });
  });
});
