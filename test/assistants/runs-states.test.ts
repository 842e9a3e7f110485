/**
 * The run states and stream events beyond the happy path, over a fake OpenAI upstream with the
 * official `openai` client: every streamed terminal event (thread.run.failed, incomplete,
 * cancelled, expired), tool calls streamed as `thread.run.step.delta` in OpenAI's shape,
 * `event: error` when a stream ends before its run rests, `failed` with invalid_prompt, expiry
 * from `queued` (injected clock), an invalid response_format refused, the inline provider key held
 * only as ciphertext while the run lives and erased when it completes, and a saved fallback config
 * stored on the assistant.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

type ApiError = InstanceType<typeof OpenAI.APIError>;
type StreamEvent = OpenAI.Beta.Assistants.AssistantStreamEvent;
const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } };
const thread = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

for (const engine of fullEngines()) describe(`assistant run states and stream events (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeOpenAi;
  let client: OpenAI;
  let clock = Date.now();

  before(async () => {
    fake = await startFakeOpenAi();
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, now: () => clock });
    client = new OpenAI({
      apiKey: 'sk-upstream-inline',
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

  const assistant = (extra: Partial<OpenAI.Beta.AssistantCreateParams> = {}) => client.beta.assistants.create({ model: 'gpt-4o-mini', ...extra });

  /** Streams a create-and-run and answers the event names and the final run. */
  async function streamed(params: Omit<OpenAI.Beta.ThreadCreateAndRunParamsStreaming, 'stream'>, onEvent: (event: StreamEvent) => void = () => undefined) {
    const stream = client.beta.threads.createAndRunStream(params);
    const events: StreamEvent[] = [];
    stream.on('event', (event) => {
      events.push(event);
      onEvent(event);
    });
    const run = await stream.finalRun();
    return { run, names: events.map((event) => event.event), events };
  }

  it('streams thread.run.failed when the upstream fails, and thread.run.incomplete at max_completion_tokens', async () => {
    const asst = await assistant();
    fake.next({ kind: 'error', status: 500 });
    const failed = await streamed({ assistant_id: asst.id, thread: thread('hi') });
    assert.equal(failed.run.status, 'failed');
    assert.equal(failed.run.last_error?.code, 'server_error');
    assert.equal(failed.names.at(-1), 'thread.run.failed');

    fake.next({ kind: 'reply', content: 'cut short', finishReason: 'length' });
    const incomplete = await streamed({ assistant_id: asst.id, max_completion_tokens: 256, thread: thread('everything') });
    assert.equal(incomplete.run.status, 'incomplete');
    assert.deepEqual(incomplete.run.incomplete_details, { reason: 'max_completion_tokens' });
    assert.ok(incomplete.names.includes('thread.message.incomplete'), incomplete.names.join(','));
    assert.equal(incomplete.names.at(-1), 'thread.run.incomplete');
  });

  it('streams thread.run.cancelled when the run is cancelled mid-turn', async () => {
    const asst = await assistant();
    const sent = fake.requests.length;
    fake.next({ kind: 'hang' });
    let cancel: Promise<unknown> | undefined;
    const result = await streamed({ assistant_id: asst.id, thread: thread('slow') }, (event) => {
      // Cancelled once the turn's call hangs at the fake, so no hang is left for a later test's call.
      if (event.event === 'thread.run.in_progress') {
        cancel = until(async () => fake.requests.length > sent).then(() => client.beta.threads.runs.cancel(event.data.id, { thread_id: event.data.thread_id }));
      }
    });
    await cancel;
    assert.equal(result.run.status, 'cancelled');
    assert.ok(result.run.cancelled_at);
    assert.deepEqual(result.names.slice(-2), ['thread.run.cancelling', 'thread.run.cancelled']);
  });

  it('streams thread.run.expired for a run no executor took before expires_at (injected clock)', async () => {
    const asst = await assistant();
    const executor = app.services.assistantRuns;
    const execute = executor.execute.bind(executor);
    const sent = fake.requests.length;
    // The run waits in the queue past its 10 minutes before an executor takes it.
    executor.execute = (runId) => {
      clock += 11 * 60_000;
      return execute(runId);
    };
    try {
      const result = await streamed({ assistant_id: asst.id, thread: thread('late') });
      assert.equal(result.run.status, 'expired');
      assert.equal(result.names.at(-1), 'thread.run.expired');
      assert.equal(fake.requests.length, sent, 'an expired run makes no model call');
    } finally {
      executor.execute = execute;
    }
  });

  it('expires a run left queued more than 10 minutes (injected clock)', async () => {
    const asst = await assistant();
    const jobs = app.services.jobs;
    const enqueue = jobs.enqueue.bind(jobs);
    // No worker takes the run's turn (every one busy): it waits in `queued`.
    jobs.enqueue = async () => undefined;
    try {
      const run = await client.beta.threads.createAndRun({ assistant_id: asst.id, thread: thread('anyone?') });
      assert.equal(run.status, 'queued');
      clock += 9 * 60_000;
      await app.services.assistantRuns.sweep();
      assert.equal((await client.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id })).status, 'queued');
      clock += 2 * 60_000;
      await app.services.assistantRuns.sweep();
      const expired = await client.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id });
      assert.equal(expired.status, 'expired');
      assert.equal(expired.started_at, null);
      assert.equal((await app.services.store.assistantRuns.byId(run.id))?.state?.sealedHeaders, null);
    } finally {
      jobs.enqueue = enqueue;
    }
  });

  it('streams tool calls as thread.run.step.delta events in OpenAI\'s shape, the arguments as they arrive', async () => {
    const asst = await assistant({ tools: [weather] });
    const stream = client.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: thread('Weather in Paris?') });
    const deltas: unknown[] = [];
    const done: OpenAI.Beta.Threads.Runs.ToolCall[] = [];
    stream.on('event', (event) => {
      // Copied as sent: the client's accumulation later merges into the first delta's objects.
      if (event.event === 'thread.run.step.delta') deltas.push(structuredClone(event.data));
    });
    stream.on('toolCallDone', (call) => done.push(call));
    const run = await stream.finalRun();
    assert.equal(run.status, 'requires_action');
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id });
    const stepId = steps.data[0]!.id;
    assert.deepEqual(deltas, [
      {
        id: stepId,
        object: 'thread.run.step.delta',
        delta: { step_details: { type: 'tool_calls', tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: '', output: null } }] } },
      },
      { id: stepId, object: 'thread.run.step.delta', delta: { step_details: { type: 'tool_calls', tool_calls: [{ index: 0, type: 'function', function: { arguments: '{"location":"Paris"}' } }] } } },
    ]);
    // The client's own accumulation of the deltas is the call the run waits for.
    assert.deepEqual(done, [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}', output: null } }]);
    assert.deepEqual(run.required_action!.submit_tool_outputs.tool_calls, [{ id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }]);
    await client.beta.threads.runs.cancel(run.id, { thread_id: run.thread_id });
  });

  it('fails with invalid_prompt when the provider refuses the request as invalid (400)', async () => {
    const asst = await assistant();
    fake.next({ kind: 'error', status: 400, message: 'Invalid prompt: it breaks the rules' });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: thread('bad') }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'failed');
    assert.equal(run.last_error?.code, 'invalid_prompt');
    assert.match(run.last_error!.message, /Invalid prompt/);
  });

  it('refuses an invalid response_format with 400 before anything runs', async () => {
    const asst = await assistant();
    const sent = fake.requests.length;
    for (const response_format of [{ type: 'xml' }, { type: 'json_schema' }, 'always']) {
      await assert.rejects(
        client.beta.threads.createAndRun({ assistant_id: asst.id, response_format, thread: thread('x') } as unknown as OpenAI.Beta.ThreadCreateAndRunParamsNonStreaming),
        (error: ApiError) => {
          assert.equal(error.status, 400, JSON.stringify(response_format));
          assert.match(String((error.error as { param?: string }).param), /^response_format/);
          return true;
        },
      );
    }
    assert.equal(fake.requests.length, sent);
  });

  it('holds the inline provider key only as ciphertext while the run lives, and erases it when the run completes', async () => {
    const asst = await assistant({ tools: [weather] });
    const waiting = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: thread('Weather?') }, { pollIntervalMs: 20 });
    assert.equal(waiting.status, 'requires_action');
    const rawRow = async () => (await app.services.db('assistant_runs').where({ id: waiting.id }).first()) as Record<string, unknown>;
    const living = await rawRow();
    assert.ok(!JSON.stringify(living).includes('sk-upstream-inline'), 'no plaintext key in the stored row');
    const sealed = (await app.services.store.assistantRuns.byId(waiting.id))!.state!.sealedHeaders!;
    assert.equal(typeof sealed, 'string');
    assert.equal((JSON.parse(app.services.secrets.open(sealed)) as Record<string, string>).authorization, 'Bearer sk-upstream-inline', 'the ciphertext is the key');
    const done = await client.beta.threads.runs.submitToolOutputsAndPoll(waiting.id, { thread_id: waiting.thread_id, tool_outputs: [{ tool_call_id: 'call_fake_1', output: 'sunny' }] }, { pollIntervalMs: 20 });
    assert.equal(done.status, 'completed');
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-upstream-inline');
    assert.equal((await app.services.store.assistantRuns.byId(waiting.id))!.state!.sealedHeaders, null);
    assert.ok(!JSON.stringify(await rawRow()).includes(sealed), 'the ciphertext is gone too');
  });
});

for (const engine of fullEngines()) describe(`a provider stored on the assistant (${engine.name})`, () => {
  let app: TestApp;
  let primary: FakeOpenAi;
  let backup: FakeOpenAi;
  let gwOnly: OpenAI;

  before(async () => {
    primary = await startFakeOpenAi();
    backup = await startFakeOpenAi();
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    const config = await app.http
      .post('/v1/configs')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({
        name: 'Run fallback',
        slug: 'run-fallback',
        config: {
          strategy: { mode: 'fallback', on_status_codes: [500] },
          targets: [
            { provider: 'openai', api_key: 'sk-primary', custom_host: primary.url },
            { provider: 'openai', api_key: 'sk-backup', custom_host: backup.url },
          ],
        },
      });
    assert.equal(config.status, 201, JSON.stringify(config.body));
    // Only the gw key (as the OpenAI client's own key): the provider comes from the assistant.
    gwOnly = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await app?.close();
    await primary?.close();
    await backup?.close();
  });

  it('runs on the saved fallback config named in the assistant\'s metadata (x-gw-config)', async () => {
    const asst = await gwOnly.beta.assistants.create({ model: 'gpt-4o-mini', metadata: { 'x-gw-config': 'run-fallback' } });
    primary.next({ kind: 'error', status: 500 });
    const run = await gwOnly.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: thread('Hello') }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    assert.equal(primary.requests.at(-1)!.headers.authorization, 'Bearer sk-primary');
    assert.equal(backup.requests.length, 1);
    assert.equal(backup.requests[0]!.headers.authorization, 'Bearer sk-backup');
    const [answer] = (await gwOnly.beta.threads.messages.list(run.thread_id)).data;
    assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'You said: Hello');
  });

  it('lets the run call\'s own provider headers win over the assistant\'s', async () => {
    const asst = await gwOnly.beta.assistants.create({ model: 'gpt-4o-mini', metadata: { 'x-gw-config': 'run-fallback' } });
    const inline = new OpenAI({ apiKey: 'sk-inline', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': backup.url } });
    const before = primary.requests.length;
    const run = await inline.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: thread('Hi') }, { pollIntervalMs: 20 });
    assert.equal(run.status, 'completed');
    assert.equal(primary.requests.length, before);
    assert.equal(backup.requests.at(-1)!.headers.authorization, 'Bearer sk-inline');
  });

  it('refuses a stored selection that is not a saved config or provider of the workspace', async () => {
    const refused = async (metadata: Record<string, string>, param: string) =>
      assert.rejects(gwOnly.beta.assistants.create({ model: 'gpt-4o-mini', metadata }), (error: ApiError) => {
        assert.equal(error.status, 400);
        assert.equal((error.error as { param?: string }).param, param);
        return true;
      });
    await refused({ 'x-gw-config': 'no-such-config' }, 'metadata.x-gw-config');
    await refused({ 'x-gw-config': '{"provider":"openai","api_key":"sk-leak"}' }, 'metadata.x-gw-config');
    await refused({ 'x-gw-provider': 'openai' }, 'metadata.x-gw-provider');
    await refused({ 'x-gw-provider': '@nobody' }, 'metadata.x-gw-provider');
    const asst = await gwOnly.beta.assistants.create({ model: 'gpt-4o-mini' });
    await assert.rejects(gwOnly.beta.assistants.update(asst.id, { metadata: { 'x-gw-config': 'no-such-config' } }), (error: ApiError) => error.status === 400);
  });
});

for (const engine of fullEngines()) describe(`a stream that ends before its run rests (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeOpenAi;

  before(async () => {
    fake = await startFakeOpenAi();
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('sends event: error (the error body, which the client throws) when gw shuts down mid-turn and hands the run back', async () => {
    const client = new OpenAI({ apiKey: 'sk-up', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url } });
    const asst = await client.beta.assistants.create({ model: 'gpt-4o-mini' });
    const sent = fake.requests.length;
    fake.next({ kind: 'hang' });
    const stream = client.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: thread('slow') });
    let runId = '';
    stream.on('event', (event) => {
      if (event.event === 'thread.run.in_progress') {
        runId = event.data.id;
        // Graceful shutdown once the turn's call hangs at the fake: that turn is cut at the grace deadline and handed back.
        void until(async () => fake.requests.length > sent).then(() => app.services.assistantRuns.close(20));
      }
    });
    await assert.rejects(stream.finalRun(), (error: ApiError) => {
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.equal((error.error as { code?: string }).code, 'server_error');
      assert.match(error.message, /stopped streaming before it came to rest/);
      return true;
    });
    await until(async () => (await app.services.store.assistantRuns.byId(runId))?.status === 'queued');
    assert.equal((await app.services.store.assistantRuns.byId(runId))?.status, 'queued', 'the run waits for another instance');
  });
});
