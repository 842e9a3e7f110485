/**
 * Runs executed by gw over a fake Anthropic upstream (the Messages API), with the official
 * `openai` client: the same Assistants calls as over OpenAI, because each turn goes through gw's
 * chat pipeline and its Anthropic adapter. A saved provider (`@slug/model` as the assistant's
 * model) selects the provider, so no header is needed on the run calls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const text = (value: string): FakeAnthropicReply => ({ kind: 'message', message: { content: [{ type: 'text', text: value }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
const toolUse: FakeAnthropicReply = {
  kind: 'message',
  message: { content: [{ type: 'tool_use', id: 'toolu_run', name: 'get_weather', input: { city: 'Oslo' } }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 9 } },
};

for (const engine of fullEngines()) describe(`assistant runs over Anthropic (${engine.name})`, () => {
  let app: TestApp;
  let fake: RecordingServer;
  let client: OpenAI;
  const replies: FakeAnthropicReply[] = [];

  before(async () => {
    fake = await startFakeAnthropic(() => replies.shift() ?? text('Hello from Claude'));
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    const saved = await app.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant-run', configurations: { custom_host: fake.url } });
    assert.ok(saved.status < 300, JSON.stringify(saved.body));
    // The gw key as the OpenAI client's own key (Authorization: Bearer): nothing else is needed.
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('answers a run in text, with the Anthropic usage on the run', async () => {
    const asst = await client.beta.assistants.create({ model: '@claude/claude-sonnet-4-5', instructions: 'Be kind.' });
    replies.push(text('Bonjour!'));
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hello' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    assert.deepEqual(run.usage, { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, '/v1/messages');
    assert.equal(sent.headers['x-api-key'], 'sk-ant-run');
    assert.equal(sent.body?.model, 'claude-sonnet-4-5');
    assert.deepEqual(sent.body?.system, [{ type: 'text', text: 'Be kind.' }]);
    const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
    assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'Bonjour!');
  });

  it('round-trips a function tool: tool_use -> requires_action -> tool_result -> answer, streamed', async () => {
    const asst = await client.beta.assistants.create({
      model: '@claude/claude-sonnet-4-5',
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    replies.push(toolUse);
    const first = client.beta.threads.runs.stream(thread.id, { assistant_id: asst.id });
    const waiting = await first.finalRun();
    assert.equal(waiting.status, 'requires_action');
    const [call] = waiting.required_action!.submit_tool_outputs.tool_calls;
    assert.equal(call!.id, 'toolu_run');
    assert.deepEqual(JSON.parse(call!.function.arguments), { city: 'Oslo' });
    replies.push(text('It is 3C in Oslo.'));
    const second = client.beta.threads.runs.submitToolOutputsStream(waiting.id, { thread_id: thread.id, tool_outputs: [{ tool_call_id: 'toolu_run', output: '3C' }] });
    let streamed = '';
    second.on('textDelta', (delta) => {
      streamed += delta.value ?? '';
    });
    const done = await second.finalRun();
    assert.equal(done.status, 'completed');
    assert.equal(streamed, 'It is 3C in Oslo.');
    assert.deepEqual(done.usage, { prompt_tokens: 30, completion_tokens: 13, total_tokens: 43 });
    const messages = fake.received.at(-1)!.body?.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.equal(messages.at(-2)!.content[0]!.type, 'tool_use');
    assert.deepEqual(messages.at(-1), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_run', content: '3C' }] });
  });

  it('honours tool_choice and parallel_tool_calls: Anthropic gets tool_choice with disable_parallel_tool_use', async () => {
    const tools = ['get_weather', 'get_time'].map((name) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } }));
    const asst = await client.beta.assistants.create({ model: '@claude/claude-sonnet-4-5', tools });
    const sent = () => fake.received.at(-1)!.body?.tool_choice;
    replies.push(toolUse);
    const named = await client.beta.threads.createAndRunPoll(
      { assistant_id: asst.id, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false, thread: { messages: [{ role: 'user', content: 'Oslo?' }] } },
      { pollIntervalMs: 20 },
    );
    assert.equal(named.status, 'requires_action');
    assert.deepEqual(sent(), { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
    await client.beta.threads.runs.cancel(named.id, { thread_id: named.thread_id });
    replies.push(toolUse);
    const required = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'required', thread: { messages: [{ role: 'user', content: 'Oslo?' }] } }, { pollIntervalMs: 20 });
    assert.deepEqual(sent(), { type: 'any' });
    await client.beta.threads.runs.cancel(required.id, { thread_id: required.thread_id });
    replies.push(text('No tools.'));
    const none = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'none', thread: { messages: [{ role: 'user', content: 'Hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(none.status, 'completed');
    assert.deepEqual(sent(), { type: 'none' });
  });

  it('ends incomplete (max_prompt_tokens) when the prompt Anthropic counted is over the run\'s budget', async () => {
    const asst = await client.beta.assistants.create({ model: '@claude/claude-sonnet-4-5' });
    replies.push({ kind: 'message', message: { content: [{ type: 'text', text: 'A long story' }], stop_reason: 'end_turn', usage: { input_tokens: 300, output_tokens: 3 } } });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, max_prompt_tokens: 256, thread: { messages: [{ role: 'user', content: 'Everything, please' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'incomplete');
    assert.deepEqual(run.incomplete_details, { reason: 'max_prompt_tokens' });
    assert.deepEqual(run.usage, { prompt_tokens: 300, completion_tokens: 3, total_tokens: 303 });
    const [message] = (await client.beta.threads.messages.list(run.thread_id)).data;
    assert.equal(message!.status, 'incomplete');
  });

  it('fails the run with last_error when Anthropic answers an error', async () => {
    const asst = await client.beta.assistants.create({ model: '@claude/claude-sonnet-4-5' });
    replies.push({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'failed');
    assert.equal(run.last_error?.code, 'server_error');
  });
});
