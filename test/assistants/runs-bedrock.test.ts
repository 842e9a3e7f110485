/**
 * Runs executed by gw over a fake AWS Bedrock runtime (ConverseStream in the event-stream framing,
 * every call's SigV4 signature checked), with the official `openai` client's helpers: a plain
 * answer, a function-tool round trip (toolUse -> requires_action -> toolResult -> answer), and
 * tool_choice / parallel_tool_calls honoured: tool_choice becomes Converse's toolChoice, and with
 * parallel_tool_calls false gw keeps the model's first call (Converse has no switch for it). The
 * provider is a saved one named by the assistant's model (`@slug/model`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock, type StreamFrame } from '../helpers/fake-bedrock.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const ACCESS_KEY_ID = 'AKIDRUNSBEDROCK';
const SECRET = 'runs-bedrock-secret';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const clock = { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

const finish = (stopReason: string, usage: { inputTokens: number; outputTokens: number }): StreamFrame[] => [
  { event: 'messageStop', payload: { stopReason } },
  { event: 'metadata', payload: { usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, metrics: { latencyMs: 5 } } },
];
const text = (...pieces: string[]): BedrockBehaviour => ({
  kind: 'stream',
  frames: [
    { event: 'messageStart', payload: { role: 'assistant' } },
    ...pieces.map((piece) => ({ event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: piece } } })),
    { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
    ...finish('end_turn', { inputTokens: 12, outputTokens: 4 }),
  ],
});
const toolUses = (...names: string[]): BedrockBehaviour => ({
  kind: 'stream',
  frames: [
    { event: 'messageStart', payload: { role: 'assistant' } },
    ...names.flatMap((name, index): StreamFrame[] => [
      { event: 'contentBlockStart', payload: { contentBlockIndex: index, start: { toolUse: { toolUseId: `tooluse_${name}`, name } } } },
      { event: 'contentBlockDelta', payload: { contentBlockIndex: index, delta: { toolUse: { input: '{"city":' } } } },
      { event: 'contentBlockDelta', payload: { contentBlockIndex: index, delta: { toolUse: { input: '"Lima"}' } } } },
      { event: 'contentBlockStop', payload: { contentBlockIndex: index } },
    ]),
    ...finish('tool_use', { inputTokens: 20, outputTokens: 8 }),
  ],
});

for (const engine of fullEngines()) describe(`assistant runs over Bedrock (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeBedrock;
  let client: OpenAI;
  const script: BedrockBehaviour[] = [];

  before(async () => {
    fake = await startFakeBedrock({ credentials: { [ACCESS_KEY_ID]: SECRET }, script: () => script.shift() ?? text('Hola') });
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    const saved = await app.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({
        name: 'Bedrock runs',
        slug: 'bedrock-runs',
        ai_provider_id: 'bedrock',
        configurations: { aws_region: 'eu-west-1', aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET, custom_host: fake.url },
      });
    assert.ok(saved.status < 300, JSON.stringify(saved.body));
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  const assistant = (tools: OpenAI.Beta.AssistantTool[] = []) => client.beta.assistants.create({ model: `@bedrock-runs/${MODEL}`, instructions: 'Be brief.', tools });
  const last = () => fake.received.at(-1)!;

  it('answers a run in text over ConverseStream, signed, streamed to the client', async () => {
    const asst = await assistant();
    script.push(text('Hola, ', 'qué tal'));
    const stream = client.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hello' }] } });
    let streamed = '';
    stream.on('textDelta', (delta) => {
      streamed += delta.value ?? '';
    });
    const run = await stream.finalRun();
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    assert.equal(streamed, 'Hola, qué tal');
    assert.deepEqual(run.usage, { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    const sent = last();
    assert.equal(sent.operation, 'converse-stream');
    assert.equal(sent.modelId, MODEL);
    assert.equal(sent.signature.valid, true, sent.signature.reason);
    assert.equal(sent.signature.region, 'eu-west-1');
    assert.deepEqual(sent.body.system, [{ text: 'Be brief.' }]);
  });

  it('round-trips a function tool: toolUse -> requires_action -> toolResult -> answer (createAndRunPoll, submitToolOutputsAndPoll)', async () => {
    const asst = await assistant([weather]);
    script.push(toolUses('get_weather'));
    const waiting = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Weather in Lima?' }] } }, { pollIntervalMs: 20 });
    assert.equal(waiting.status, 'requires_action', JSON.stringify(waiting.last_error));
    assert.deepEqual(waiting.required_action!.submit_tool_outputs.tool_calls, [{ id: 'tooluse_get_weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } }]);
    script.push(text('Foggy, 17C.'));
    const done = await client.beta.threads.runs.submitToolOutputsAndPoll(
      waiting.id,
      { thread_id: waiting.thread_id, tool_outputs: [{ tool_call_id: 'tooluse_get_weather', output: '17C, fog' }] },
      { pollIntervalMs: 20 },
    );
    assert.equal(done.status, 'completed', JSON.stringify(done.last_error));
    assert.deepEqual(done.usage, { prompt_tokens: 32, completion_tokens: 12, total_tokens: 44 });
    const messages = last().body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(messages.at(-2), { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_get_weather', name: 'get_weather', input: { city: 'Lima' } } }] });
    assert.deepEqual(messages.at(-1), { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_get_weather', content: [{ text: '17C, fog' }] } }] });
    const [answer] = (await client.beta.threads.messages.list(done.thread_id)).data;
    assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'Foggy, 17C.');
  });

  it('honours tool_choice (toolChoice) and parallel_tool_calls false (the first call only)', async () => {
    const asst = await assistant([weather, clock]);
    script.push(toolUses('get_weather', 'get_time'));
    const single = await client.beta.threads.createAndRunPoll(
      { assistant_id: asst.id, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false, thread: { messages: [{ role: 'user', content: 'Lima?' }] } },
      { pollIntervalMs: 20 },
    );
    assert.deepEqual((last().body.toolConfig as { toolChoice: unknown }).toolChoice, { tool: { name: 'get_weather' } });
    assert.equal(single.status, 'requires_action');
    assert.deepEqual(single.required_action!.submit_tool_outputs.tool_calls.map((c) => c.id), ['tooluse_get_weather']);
    await client.beta.threads.runs.cancel(single.id, { thread_id: single.thread_id });

    script.push(toolUses('get_weather', 'get_time'));
    const both = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'required', thread: { messages: [{ role: 'user', content: 'Lima?' }] } }, { pollIntervalMs: 20 });
    assert.deepEqual((last().body.toolConfig as { toolChoice: unknown }).toolChoice, { any: {} });
    assert.deepEqual(both.required_action!.submit_tool_outputs.tool_calls.map((c) => c.id), ['tooluse_get_weather', 'tooluse_get_time']);
    await client.beta.threads.runs.cancel(both.id, { thread_id: both.thread_id });

    script.push(text('Just text.'));
    const none = await client.beta.threads.createAndRunPoll({ assistant_id: asst.id, tool_choice: 'none', thread: { messages: [{ role: 'user', content: 'Hi' }] } }, { pollIntervalMs: 20 });
    assert.equal(none.status, 'completed', JSON.stringify(none.last_error));
    // Converse has no "none": gw offers no tools at all.
    assert.equal(last().body.toolConfig, undefined);
  });
});
