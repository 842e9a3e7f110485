/** The fake Anthropic upstream is held to the real format: the official @anthropic-ai/sdk reads it. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import type { RecordingServer } from '../helpers/recording-server.js';

const TOOL_REPLY: FakeAnthropicReply = {
  kind: 'message',
  message: {
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris', unit: 'c' } },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
  },
};

describe('fake Anthropic upstream read by @anthropic-ai/sdk', () => {
  let fake: RecordingServer;
  let replies: FakeAnthropicReply[] = [];
  let client: Anthropic;

  before(async () => {
    fake = await startFakeAnthropic(() => replies.shift() ?? { kind: 'error', status: 500, type: 'api_error', message: 'no reply scripted' });
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0 });
  });
  after(() => fake.close());

  it('answers messages.create with a message the SDK parses', async () => {
    replies = [{ kind: 'message', message: { content: [{ type: 'text', text: 'Bonjour' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 2 } } }];
    const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(message.content[0]?.type, 'text');
    assert.equal((message.content[0] as Anthropic.TextBlock).text, 'Bonjour');
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 3);
    const received = fake.received.at(-1)!;
    assert.equal(received.path, '/v1/messages');
    assert.equal(received.headers['x-api-key'], 'sk-ant-test');
    assert.ok(received.headers['anthropic-version']);
  });

  it('streams text the SDK assembles into the final message', async () => {
    replies = [{ kind: 'message', message: { content: [{ type: 'text', text: 'one two three' }], stop_reason: 'end_turn' } }];
    const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Count' }] });
    const pieces: string[] = [];
    stream.on('text', (text) => pieces.push(text));
    const message = await stream.finalMessage();
    assert.deepEqual(pieces, ['one', ' two', ' three']);
    assert.equal((message.content[0] as Anthropic.TextBlock).text, 'one two three');
  });

  it('streams a tool call whose JSON input the SDK rebuilds from input_json_delta', async () => {
    replies = [TOOL_REPLY];
    const message = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] })
      .finalMessage();
    const toolUse = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    assert.deepEqual(toolUse?.input, { city: 'Paris', unit: 'c' });
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(message.usage.cache_read_input_tokens, 100);
  });

  it('answers errors in the shape the SDK turns into APIError', async () => {
    replies = [{ kind: 'error', status: 429, type: 'rate_limit_error', message: 'Slow down' }];
    await assert.rejects(client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError);
      assert.match(error.message, /Slow down/);
      return true;
    });
  });

  it('ends a stream with an error event the SDK raises', async () => {
    replies = [{ ...TOOL_REPLY, errorAfterEvents: 3 } as FakeAnthropicReply];
    const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] });
    await assert.rejects(stream.finalMessage(), /Overloaded/);
  });

  it('lists models in the SDK shape', async () => {
    const page = await client.models.list();
    assert.equal(page.data[0]?.id, 'claude-sonnet-4-5');
  });
});
