/** `mock_response`: gw answers by itself, JSON or streamed, with no provider key and no upstream call, logged like any request. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

describe('mock_response', () => {
  let gw: GatewayApp;
  let client: OpenAI;
  before(async () => {
    gw = await startGatewayApp();
    // No provider key anywhere: only the gw key and a provider name.
    client = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: 'no-provider-key', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai' } });
  });
  after(() => gw.close());

  it('answers with the given text and estimated usage, calls no upstream, and logs it', async () => {
    const calls = gw.fake.requests.length;
    const before = gw.logs.length;
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello gw!' }], mock_response: 'Hi from gw' } as never);
    assert.equal(answer.choices[0]!.message.content, 'Hi from gw');
    assert.equal(answer.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(answer.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    assert.equal(gw.fake.requests.length, calls, 'no upstream call');
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.status, 200);
    assert.equal(entry.provider, 'openai');
    assert.equal(entry.model, 'gpt-4o-mini');
    assert.equal(entry.total_tokens, 6);
  });

  it('streams the same answer as server-sent events', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true }, mock_response: 'streamed hello' } as never);
    let text = '';
    let usage: unknown;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'streamed hello');
    assert.deepEqual(usage, { prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 });
  });
});
