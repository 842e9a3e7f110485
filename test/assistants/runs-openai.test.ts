/**
 * Runs executed by gw over a fake OpenAI upstream, driven by the official `openai` client's
 * helpers (createAndRunPoll, submitToolOutputsAndPoll, the stream helpers): a plain answer, a
 * function-tool round trip, streaming with OpenAI's event names, cancel, expiry on an injected
 * clock, max_completion_tokens ending incomplete, upstream failures ending failed, and the seed's
 * run limits refused with 400 before anything runs.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { assertEndpointRolledUp } from '../logs/rollup-check.js';

type ApiError = InstanceType<typeof OpenAI.APIError>;
const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } };

for (const engine of fullEngines()) describe(`assistant runs over OpenAI (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeOpenAi;
  let client: OpenAI;
  let clock = Date.now();
  const logs: RequestLogEntry[] = [];

  before(async () => {
    fake = await startFakeOpenAi();
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, now: () => clock });
    recordLogsInto(app, logs);
    // The gw key in x-gw-api-key; Authorization carries the provider key for the inline provider.
    client = new OpenAI({
      apiKey: 'sk-upstream',
      baseURL: `${app.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url },
    });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });
  beforeEach(() => {
    clock = Date.now();
  });

  const assistant = (extra: Partial<OpenAI.Beta.AssistantCreateParams> = {}) =>
    client.beta.assistants.create({ model: 'gpt-4o-mini', instructions: 'Answer briefly.', ...extra });

  const textOf = (message: OpenAI.Beta.Threads.Message) => (message.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value;

  it('creates a thread and runs it: the answer is a thread message, usage on the run, the turn logged through the chat pipeline', async () => {
    const asst = await assistant();
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hello there' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'completed');
    assert.equal(run.object, 'thread.run');
    assert.equal(run.model, 'gpt-4o-mini');
    assert.equal(run.instructions, 'Answer briefly.');
    assert.deepEqual(run.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    assert.ok(run.started_at && run.completed_at);
    assert.equal(run.expires_at, null);
    const upstream = fake.requests.at(-1)!;
    assert.deepEqual((upstream.body.messages as unknown[]).slice(0, 2), [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: 'Hello there' }]);
    assert.equal(upstream.headers.authorization, 'Bearer sk-upstream');
    const messages = await client.beta.threads.messages.list(run.thread_id, { order: 'asc' });
    assert.deepEqual(messages.data.map((m) => [m.role, textOf(m)]), [['user', 'Hello there'], ['assistant', 'You said: Hello there']]);
    assert.equal(messages.data[1]!.run_id, run.id);
    assert.equal(messages.data[1]!.assistant_id, asst.id);
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id });
    assert.equal(steps.data.length, 1);
    assert.equal(steps.data[0]!.type, 'message_creation');
    assert.equal(steps.data[0]!.status, 'completed');
    assert.deepEqual(steps.data[0]!.step_details, { type: 'message_creation', message_creation: { message_id: messages.data[1]!.id } });
    assert.deepEqual(await client.beta.threads.runs.steps.retrieve(steps.data[0]!.id, { thread_id: run.thread_id, run_id: run.id }), steps.data[0]);
    const turnLog = logs.find((entry) => entry.metadata.run_id === run.id);
    assert.ok(turnLog, 'the turn is a logged chat request');
    await app.services.requestLogs.flush();
    await assertEndpointRolledUp(app.services.db, 'chat.completions', 'a run turn');
    assert.equal(turnLog.trace_id, run.id);
    assert.equal(turnLog.metadata.thread_id, run.thread_id);
    assert.equal(turnLog.provider, 'openai');
    assert.equal(turnLog.total_tokens, 18);
    const listed = await client.beta.threads.runs.list(run.thread_id);
    assert.deepEqual(listed.data.map((r) => r.id), [run.id]);
  });

  it('ends a turn with function tool calls in requires_action, and continues with the submitted outputs', async () => {
    const asst = await assistant({ tools: [weather] });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const waiting = await client.beta.threads.runs.createAndPoll(thread.id, { assistant_id: asst.id }, { pollIntervalMs: 20 });
    assert.equal(waiting.status, 'requires_action');
    const calls = waiting.required_action!.submit_tool_outputs.tool_calls;
    assert.deepEqual(calls, [{ id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }]);
    assert.ok(waiting.expires_at! > waiting.created_at);
    const offered = fake.requests.at(-1)!.body;
    assert.deepEqual(offered.tools, [weather]);
    assert.equal(offered.tool_choice, 'auto');
    assert.equal(offered.parallel_tool_calls, true);
    const done = await client.beta.threads.runs.submitToolOutputsAndPoll(waiting.id, { thread_id: thread.id, tool_outputs: [{ tool_call_id: 'call_fake_1', output: '18C and sunny' }] }, { pollIntervalMs: 20 });
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.usage, { prompt_tokens: 22, completion_tokens: 14, total_tokens: 36 });
    const second = fake.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    assert.deepEqual(second.slice(-2), [
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'call_fake_1', content: '18C and sunny' },
    ]);
    const steps = await client.beta.threads.runs.steps.list(done.id, { thread_id: thread.id, order: 'asc' });
    assert.deepEqual(steps.data.map((s) => [s.type, s.status]), [['tool_calls', 'completed'], ['message_creation', 'completed']]);
    const toolStep = steps.data[0]!.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails;
    assert.equal((toolStep.tool_calls[0] as OpenAI.Beta.Threads.Runs.FunctionToolCall).function.output, '18C and sunny');
    // Outputs to a run that is not waiting for them: 400.
    await assert.rejects(
      client.beta.threads.runs.submitToolOutputs(done.id, { thread_id: thread.id, tool_outputs: [{ tool_call_id: 'call_fake_1', output: 'again' }] }),
      (error: ApiError) => error.status === 400,
    );
  });

  it('streams a run with OpenAI event names, text deltas as they come, then done', async () => {
    const asst = await assistant();
    const stream = client.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'one two three' }] } });
    const events: string[] = [];
    let text = '';
    stream.on('event', (event) => events.push(event.event));
    stream.on('textDelta', (delta) => {
      text += delta.value ?? '';
    });
    const run = await stream.finalRun();
    assert.equal(run.status, 'completed');
    assert.equal(text, 'You said: one two three');
    const messages = await stream.finalMessages();
    assert.equal(textOf(messages[0]!), 'You said: one two three');
    for (const name of ['thread.created', 'thread.run.created', 'thread.run.queued', 'thread.run.in_progress', 'thread.run.step.created', 'thread.message.created', 'thread.message.delta', 'thread.message.completed', 'thread.run.step.completed', 'thread.run.completed']) {
      assert.ok(events.includes(name), `${name} in ${events.join(',')}`);
    }
    assert.ok(events.indexOf('thread.run.created') < events.indexOf('thread.message.delta'));
    assert.ok(events.indexOf('thread.message.delta') < events.indexOf('thread.run.completed'));
  });

  it('streams requires_action, then streams the continuation after submit_tool_outputs', async () => {
    const asst = await assistant({ tools: [weather] });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather?' }] });
    const first = client.beta.threads.runs.stream(thread.id, { assistant_id: asst.id });
    const waiting = await first.finalRun();
    assert.equal(waiting.status, 'requires_action');
    const second = client.beta.threads.runs.submitToolOutputsStream(waiting.id, { thread_id: thread.id, tool_outputs: [{ tool_call_id: 'call_fake_1', output: 'sunny' }] });
    let text = '';
    second.on('textDelta', (delta) => {
      text += delta.value ?? '';
    });
    const done = await second.finalRun();
    assert.equal(done.status, 'completed');
    assert.equal(text, 'You said: Weather?');
  });

  it('cancels a run in a model turn (the upstream call is aborted) and a run waiting for outputs', async () => {
    const asst = await assistant();
    const sent = fake.requests.length;
    fake.next({ kind: 'hang' });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'slow' }] });
    const run = await client.beta.threads.runs.create(thread.id, { assistant_id: asst.id });
    // In progress with its call hanging at the fake (else the hang would be left for a later call).
    for (let i = 0; i < 500 && fake.requests.length === sent; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await client.beta.threads.runs.retrieve(run.id, { thread_id: thread.id })).status, 'in_progress');
    // A second run on a thread with an active run: 400.
    await assert.rejects(client.beta.threads.runs.create(thread.id, { assistant_id: asst.id }), (error: ApiError) => error.status === 400);
    const cancelling = await client.beta.threads.runs.cancel(run.id, { thread_id: thread.id });
    assert.equal(cancelling.status, 'cancelling');
    let final = cancelling;
    for (let i = 0; i < 200 && final.status === 'cancelling'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      final = await client.beta.threads.runs.retrieve(run.id, { thread_id: thread.id });
    }
    assert.equal(final.status, 'cancelled');
    assert.ok(final.cancelled_at);
    // Cancelling a finished run: 400.
    await assert.rejects(client.beta.threads.runs.cancel(run.id, { thread_id: thread.id }), (error: ApiError) => error.status === 400);

    const toolAsst = await assistant({ tools: [weather] });
    const waiting = await client.beta.threads.runs.createAndPoll(thread.id, { assistant_id: toolAsst.id }, { pollIntervalMs: 20 });
    assert.equal(waiting.status, 'requires_action');
    const cancelled = await client.beta.threads.runs.cancel(waiting.id, { thread_id: thread.id });
    assert.equal(cancelled.status, 'cancelled');
    const steps = await client.beta.threads.runs.steps.list(waiting.id, { thread_id: thread.id });
    assert.equal(steps.data[0]!.status, 'cancelled');
  });

  it('expires a run left waiting for tool outputs more than 10 minutes (injected clock)', async () => {
    const asst = await assistant({ tools: [weather] });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather?' }] });
    const waiting = await client.beta.threads.runs.createAndPoll(thread.id, { assistant_id: asst.id }, { pollIntervalMs: 20 });
    assert.equal(waiting.status, 'requires_action');
    clock += 9 * 60_000;
    assert.equal((await client.beta.threads.runs.retrieve(waiting.id, { thread_id: thread.id })).status, 'requires_action');
    clock += 2 * 60_000;
    const expired = await client.beta.threads.runs.retrieve(waiting.id, { thread_id: thread.id });
    assert.equal(expired.status, 'expired');
    await assert.rejects(
      client.beta.threads.runs.submitToolOutputs(waiting.id, { thread_id: thread.id, tool_outputs: [{ tool_call_id: 'call_fake_1', output: 'late' }] }),
      (error: ApiError) => error.status === 400,
    );
  });

  it('ends incomplete when the answer reaches max_completion_tokens', async () => {
    const asst = await assistant();
    fake.next({ kind: 'reply', content: 'a long answer', finishReason: 'length' });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, max_completion_tokens: 256, thread: { messages: [{ role: 'user', content: 'Tell me everything' }] } }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'incomplete');
    assert.deepEqual(run.incomplete_details, { reason: 'max_completion_tokens' });
    assert.equal(fake.requests.at(-1)!.body.max_completion_tokens, 256);
    const [message] = (await client.beta.threads.messages.list(run.thread_id)).data;
    assert.equal(message!.status, 'incomplete');
  });

  it('ends failed with last_error when the upstream fails', async () => {
    const asst = await assistant();
    fake.next({ kind: 'error', status: 500 });
    const failed = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.last_error?.code, 'server_error');
    assert.ok(failed.failed_at);
    fake.next({ kind: 'error', status: 429 });
    const limited = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(limited.status, 'failed');
    assert.equal(limited.last_error?.code, 'rate_limit_exceeded');
    fake.next({ kind: 'stream-error' });
    const cut = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(cut.status, 'failed');
    assert.equal(cut.last_error?.code, 'server_error');
  });

  it('refuses every seed run limit with 400 naming the field, before anything runs', async () => {
    const asst = await assistant();
    const sent = fake.requests.length;
    const thread = { messages: [{ role: 'user' as const, content: 'x' }] };
    const refused = async (params: Record<string, unknown>, param: string) =>
      assert.rejects(client.beta.threads.createAndRun({ assistant_id: asst.id, thread, ...params } as OpenAI.Beta.ThreadCreateAndRunParamsNonStreaming), (error: ApiError) => {
        assert.equal(error.status, 400, JSON.stringify(params));
        assert.equal((error.error as { param?: string }).param, param);
        return true;
      });
    await refused({ temperature: 2.5 }, 'temperature');
    await refused({ top_p: 1.5 }, 'top_p');
    await refused({ max_prompt_tokens: 255 }, 'max_prompt_tokens');
    await refused({ max_completion_tokens: 100 }, 'max_completion_tokens');
    await refused({ tools: Array.from({ length: 21 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })) }, 'tools');
    await refused({ truncation_strategy: { type: 'sometimes' } }, 'truncation_strategy.type');
    await refused({ tool_choice: 'always' }, 'tool_choice');
    await assert.rejects(client.beta.threads.createAndRun({ assistant_id: 'asst_missing', thread }), (error: ApiError) => error.status === 404);
    assert.equal(fake.requests.length, sent, 'no model call was made');
  });
});
