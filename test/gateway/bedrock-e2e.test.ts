/**
 * End to end through gw: the official `openai` client calls gw's /v1/chat/completions in custom
 * host mode with cloud3 headers; gw signs with SigV4 and talks Converse / ConverseStream to the
 * fake Bedrock on 127.0.0.1 (trusted through TRUSTED_CUSTOM_HOSTS).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock } from '../helpers/fake-bedrock.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const ACCESS_KEY_ID = 'AKIDE2EBEDROCK';
const SECRET = 'e2e-bedrock-secret';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

for (const engine of fullEngines()) describe(`gw chat completions over bedrock (${engine.name})`, () => {
  let app: TestApp;
  let fake: FakeBedrock;
  let next: BedrockBehaviour;
  let client: OpenAI;

  before(async () => {
    fake = await startFakeBedrock({ credentials: { [ACCESS_KEY_ID]: SECRET }, script: () => next });
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    client = new OpenAI({
      baseURL: `${app.url}/v1`,
      apiKey: ACCESS_KEY_ID,
      maxRetries: 0,
      defaultHeaders: {
        'x-gw-api-key': ADMIN_KEY,
        'x-gw-provider': 'bedrock',
        'x-gw-custom-host': fake.url,
        'x-gw-cloud3-secret-access-key': SECRET,
        'x-gw-cloud3-session-token': 'e2e-session',
        'x-gw-cloud3-region': 'us-west-2',
      },
    });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('answers a plain request, signed the way AWS checks it', async () => {
    next = {
      kind: 'converse',
      body: { output: { message: { role: 'assistant', content: [{ text: 'Bonjour!' }] } }, stopReason: 'end_turn', usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 }, metrics: { latencyMs: 5 } },
    };
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'French only.' }, { role: 'user', content: 'Hello' }], max_completion_tokens: 50 });
    const received = fake.received.at(-1)!;
    assert.equal(received.signature.valid, true, received.signature.reason);
    assert.equal(received.signature.region, 'us-west-2');
    assert.equal(received.headers['x-amz-security-token'], 'e2e-session');
    assert.equal(received.modelId, MODEL);
    assert.deepEqual(received.body, { system: [{ text: 'French only.' }], messages: [{ role: 'user', content: [{ text: 'Hello' }] }], inferenceConfig: { maxTokens: 50 } });
    assert.equal(completion.choices[0]!.message.content, 'Bonjour!');
    assert.equal(completion.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(completion.usage, { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
  });

  it('streams text through the event-stream translation, with usage', async () => {
    next = {
      kind: 'stream',
      chunkBytes: 11,
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Bon' } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'jour' } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        { event: 'messageStop', payload: { stopReason: 'end_turn' } },
        { event: 'metadata', payload: { usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 }, metrics: { latencyMs: 5 } } },
      ],
    };
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(fake.received.at(-1)!.operation, 'converse-stream');
    assert.equal(text, 'Bonjour');
    assert.equal(finish, 'stop');
    assert.deepEqual(usage, { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });

  it('streams a tool call', async () => {
    next = {
      kind: 'stream',
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockStart', payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_e2e', name: 'get_weather' } } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":"Lyon"}' } } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        { event: 'messageStop', payload: { stopReason: 'tool_use' } },
        { event: 'metadata', payload: { usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 }, metrics: { latencyMs: 5 } } },
      ],
    };
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    const final = await stream.finalChatCompletion();
    assert.deepEqual(final.choices[0]!.message.tool_calls, [{ id: 'tooluse_e2e', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }]);
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual((fake.received.at(-1)!.body.toolConfig as { tools: unknown[] }).tools.length, 1);
  });

  it('ends the stream with an error event when Bedrock sends an exception frame mid-stream', async () => {
    next = {
      kind: 'stream',
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Par' } } },
        { exception: 'modelStreamErrorException', message: 'The model stopped responding.' },
      ],
    };
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError, String(error));
        assert.match(error.message, /modelStreamErrorException: The model stopped responding/);
        return true;
      },
    );
    assert.equal(text, 'Par');
  });

  it('keeps the upstream status and message of a Bedrock error', async () => {
    next = { kind: 'error', status: 429, type: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' };
    await assert.rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /Too many requests/);
      return true;
    });
  });

  it('answers 400 naming x-gw-cloud3-secret-access-key when the secret is missing, before any upstream call', async () => {
    const calls = fake.received.length;
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] }, { headers: { 'x-gw-cloud3-secret-access-key': null } }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal((error.error as { param?: string }).param, 'x-gw-cloud3-secret-access-key');
        return true;
      },
    );
    assert.equal(fake.received.length, calls);
  });
});
