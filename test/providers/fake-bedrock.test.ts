/**
 * The fake Bedrock is held to the real formats: the official @aws-sdk/client-bedrock-runtime,
 * pointed at it with static credentials, signs requests the fake's independent SigV4 check
 * accepts, and reads its Converse answers, ConverseStream event streams and errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock } from '../helpers/fake-bedrock.js';

const credentials = { accessKeyId: 'AKIDFAKEBEDROCK', secretAccessKey: 'fake-secret-key', sessionToken: 'fake-session-token' };
const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

describe('fake Bedrock read by the official AWS SDK', () => {
  let fake: FakeBedrock;
  let next: BedrockBehaviour;

  before(async () => {
    fake = await startFakeBedrock({ credentials: { [credentials.accessKeyId]: credentials.secretAccessKey }, script: () => next });
  });
  after(() => fake.close());

  const client = (secretAccessKey = credentials.secretAccessKey) =>
    new BedrockRuntimeClient({ region: 'eu-west-1', endpoint: fake.url, credentials: { ...credentials, secretAccessKey }, maxAttempts: 1,
      // The SDK defaults to HTTP/2 for Bedrock; the fake (like gw's transport) speaks HTTP/1.1.
      requestHandler: new NodeHttpHandler() });

  it('Converse: the SDK signature passes the fake check and the SDK reads text, tool use, stop reason and usage', async () => {
    next = {
      kind: 'converse',
      body: {
        output: { message: { role: 'assistant', content: [{ text: 'Hello' }, { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] } },
        stopReason: 'tool_use',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 45, cacheReadInputTokens: 20, cacheWriteInputTokens: 10 },
        metrics: { latencyMs: 12 },
      },
    };
    const answer = await client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 20 } }));
    const received = fake.received.at(-1)!;
    assert.deepEqual(received.signature.valid, true, received.signature.reason);
    assert.equal(received.signature.region, 'eu-west-1');
    assert.equal(received.signature.service, 'bedrock');
    assert.equal(received.headers['x-amz-security-token'], credentials.sessionToken);
    assert.equal(received.modelId, modelId);
    assert.equal(received.operation, 'converse');
    assert.deepEqual(received.body.messages, [{ role: 'user', content: [{ text: 'Hi' }] }]);
    assert.equal(answer.output?.message?.content?.[0]?.text, 'Hello');
    assert.deepEqual(answer.output?.message?.content?.[1]?.toolUse, { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } });
    assert.equal(answer.stopReason, 'tool_use');
    assert.equal(answer.usage?.cacheReadInputTokens, 20);
    assert.equal(answer.usage?.cacheWriteInputTokens, 10);
  });

  it('Converse with an inference profile ARN: the path-encoded id is signed the way the fake expects', async () => {
    next = { kind: 'converse', body: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, metrics: { latencyMs: 1 } } };
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-3-5-sonnet-20240620-v1:0';
    await client().send(new ConverseCommand({ modelId: arn, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    const received = fake.received.at(-1)!;
    assert.equal(received.signature.valid, true, received.signature.reason);
    assert.equal(received.modelId, arn);
  });

  it('a wrong secret is refused by the fake with the 403 the SDK reports as InvalidSignatureException', async () => {
    next = { kind: 'converse', body: {} };
    await assert.rejects(client('not-the-secret').send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] })), (error: Error) => {
      assert.equal(error.name, 'InvalidSignatureException');
      return true;
    });
  });

  it('ConverseStream: the SDK decodes the fake event stream (text, tool use, stop, usage) even when frames are split', async () => {
    next = {
      kind: 'stream',
      chunkBytes: 7,
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Hel' } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'lo' } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        { event: 'contentBlockStart', payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather' } } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
        { event: 'messageStop', payload: { stopReason: 'tool_use' } },
        { event: 'metadata', payload: { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 9 } } },
      ],
    };
    const answer = await client().send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of answer.stream!) events.push(event);
    const received = fake.received.at(-1)!;
    assert.equal(received.signature.valid, true, received.signature.reason);
    assert.equal(received.operation, 'converse-stream');
    const text = events.map((event) => event.contentBlockDelta?.delta?.text ?? '').join('');
    assert.equal(text, 'Hello');
    assert.deepEqual(events.find((event) => event.contentBlockStart)?.contentBlockStart?.start?.toolUse, { toolUseId: 'tooluse_2', name: 'get_weather' });
    assert.equal(events.map((event) => event.contentBlockDelta?.delta?.toolUse?.input ?? '').join(''), '{"city":"Paris"}');
    assert.equal(events.find((event) => event.messageStop)?.messageStop?.stopReason, 'tool_use');
    assert.equal(events.find((event) => event.metadata)?.metadata?.usage?.totalTokens, 7);
  });

  it('ConverseStream: an exception frame surfaces in the SDK as the modelled exception', async () => {
    next = {
      kind: 'stream',
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { exception: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
      ],
    };
    const answer = await client().send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    await assert.rejects(
      (async () => {
        for await (const _event of answer.stream!) {
          // drain until the exception
        }
      })(),
      (error: Error) => {
        assert.equal(error.name, 'ThrottlingException');
        assert.match(error.message, /Too many tokens/);
        return true;
      },
    );
  });

  it('an error answer is read by the SDK with its type and message', async () => {
    next = { kind: 'error', status: 400, type: 'ValidationException', message: 'The provided model identifier is invalid.' };
    await assert.rejects(client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] })), (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
      assert.equal(error.name, 'ValidationException');
      assert.equal(error.message, 'The provided model identifier is invalid.');
      assert.equal(error.$metadata?.httpStatusCode, 400);
      return true;
    });
  });
});
