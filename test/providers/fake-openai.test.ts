/** The fake OpenAI upstream is held to the real wire format: the official `openai` client reads it directly. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { FAKE_USAGE, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';

describe('fake OpenAI upstream, read by the official openai client', () => {
  let fake: FakeOpenAi;
  let client: OpenAI;
  before(async () => {
    fake = await startFakeOpenAi();
    client = new OpenAI({ apiKey: 'sk-fake', baseURL: fake.url, maxRetries: 0 });
  });
  after(() => fake.close());

  it('answers a completion as JSON', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] });
    assert.equal(completion.choices[0]!.message.content, 'You said: ping');
    assert.deepEqual(completion.usage, FAKE_USAGE);
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-fake');
  });

  it('streams chunks with a usage chunk and [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a b c' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'You said: a b c');
    assert.deepEqual(usage, FAKE_USAGE);
  });

  it('answers tool calls, plain and streamed', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    const plain = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather' }], tools });
    assert.equal(plain.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(plain.choices[0]!.message.tool_calls?.[0]?.type === 'function' && plain.choices[0]!.message.tool_calls[0].function.name, 'get_weather');
    const runner = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather' }], tools });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls?.[0];
    assert.ok(call && call.type === 'function');
    assert.deepEqual(JSON.parse(call.function.arguments), { location: 'Paris' });
  });

  it('answers as its script says: a chosen tool call, or text even when tools are offered', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    fake.script((request) => ((request.body.messages as unknown[]).length > 1 ? { kind: 'reply', content: 'Sunny', toolCall: null } : { kind: 'reply', toolCall: { name: 'exec_command', arguments: '{"cmd":"ls"}' } }));
    try {
      const runner = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather' }], tools });
      const call = (await runner.finalChatCompletion()).choices[0]!.message.tool_calls?.[0];
      assert.ok(call && call.type === 'function');
      assert.deepEqual([call.function.name, JSON.parse(call.function.arguments)], ['exec_command', { cmd: 'ls' }]);
      const text = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather' }, { role: 'assistant', content: 'Looking' }], tools });
      assert.equal(text.choices[0]!.message.content, 'Sunny');
    } finally {
      fake.script(undefined);
    }
  });

  it('serves the Responses API: a hosted search item then the answer, as JSON and as the event stream', async () => {
    const plain = await client.responses.create({ model: 'gpt-4o', input: 'news', tools: [{ type: 'web_search' }] });
    assert.deepEqual(plain.output.map((item) => item.type), ['web_search_call', 'message']);
    assert.equal(plain.output_text, 'You said: news');
    assert.equal(plain.usage?.total_tokens, 30);
    const stream = client.responses.stream({ model: 'gpt-4o', input: [{ role: 'user', content: 'weather' }], tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }] });
    const final = await stream.finalResponse();
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    assert.deepEqual([call.type, call.name, JSON.parse(call.arguments)], ['function_call', 'get_weather', { location: 'Paris' }]);
  });

  it('fails with the OpenAI error body and status', async () => {
    fake.next({ kind: 'error', status: 429, message: 'slow down', code: 'rate_limit_exceeded' });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.equal(error.message, '429 slow down');
      return true;
    });
  });

  it('reports an error event mid-stream', async () => {
    fake.next({ kind: 'stream-error', message: 'boom' });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true });
    await assert.rejects(async () => {
      for await (const _chunk of stream) {
        // drain
      }
    }, /boom/);
  });

  it('lists models', async () => {
    const page = await client.models.list();
    assert.deepEqual(page.data.map((model) => model.id), ['gpt-fake-1']);
  });
});
