/** End to end through gw with the official openai client: plain, streamed and tool-call flows, logged. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];

for (const engine of fullEngines()) {
  describe(`chat through gw with the openai client (${engine.name})`, () => {
    let gw: GatewayApp;
    before(async () => {
      gw = await startGatewayApp({ engine });
    });
    after(() => gw.close());

    it('answers a plain completion and logs it', async () => {
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] }).withResponse();
      assert.equal(data.choices[0]!.message.content, 'You said: ping');
      assert.deepEqual(data.usage, FAKE_USAGE);
      assert.equal(response.headers.get('x-gw-provider'), 'openai');
      assert.equal(response.headers.get('x-gw-cache-status'), 'DISABLED');
      assert.ok(response.headers.get('x-gw-trace-id'));
      const upstream = gw.fake.requests.at(-1)!;
      assert.equal(upstream.headers.authorization, 'Bearer sk-upstream');
      assert.equal(upstream.headers['x-gw-api-key'], undefined);
      const logs = await logsSettled(gw, 1);
      const entry = logs.at(-1)!;
      assert.equal(entry.status, 200);
      assert.equal(entry.provider, 'openai');
      assert.equal(entry.total_tokens, FAKE_USAGE.total_tokens);
      assert.equal(entry.trace_id, response.headers.get('x-gw-trace-id'));
    });

    it('streams chunks as they arrive, with the usage chunk and [DONE], and logs usage', async () => {
      const before = gw.logs.length;
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two' }], stream: true, stream_options: { include_usage: true } });
      let text = '';
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, 'You said: one two');
      assert.deepEqual(usage, FAKE_USAGE);
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.stream, true);
      assert.equal(entry.status, 200);
      assert.equal(entry.completion_tokens, FAKE_USAGE.completion_tokens);
      assert.notEqual(entry.first_byte_ms, null);
    });

    it('without include_usage sends no usage chunk but still logs usage', async () => {
      const before = gw.logs.length;
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true });
      for await (const chunk of stream) assert.equal(chunk.usage ?? undefined, undefined);
      assert.deepEqual(gw.fake.requests.at(-1)!.body.stream_options, { include_usage: true });
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.total_tokens, FAKE_USAGE.total_tokens);
    });

    it('carries tool calls, plain and streamed', async () => {
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      const plain = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }], tools });
      assert.equal(plain.choices[0]!.finish_reason, 'tool_calls');
      const call = plain.choices[0]!.message.tool_calls![0]!;
      assert.ok(call.type === 'function');
      assert.equal(call.function.name, 'get_weather');
      assert.deepEqual(gw.fake.requests.at(-1)!.body.tools, tools);

      const final = await client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }], tools }).finalChatCompletion();
      const streamed = final.choices[0]!.message.tool_calls![0]!;
      assert.ok(streamed.type === 'function');
      assert.deepEqual(JSON.parse(streamed.function.arguments), { location: 'Paris' });
      assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    });

    it('refuses max_tokens on a gpt-5 model before calling upstream', async () => {
      const calls = gw.fake.requests.length;
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      await assert.rejects(client.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }), (error: { status?: number; error?: { param?: string } }) => {
        assert.equal(error.status, 400);
        assert.equal(error.error?.param, 'max_tokens');
        return true;
      });
      assert.equal(gw.fake.requests.length, calls);
    });
  });
}
