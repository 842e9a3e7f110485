/**
 * The Messages door over a saved OpenAI provider, with the official `@anthropic-ai/sdk` as the
 * client: the request is translated to a chat completion (system blocks, content blocks, tools,
 * tool_choice, tool results, thinking as reasoning_effort), the answer and the stream back to
 * Anthropic's shapes (tool_use blocks with parsed input, stop reasons, usage), count_tokens is an
 * estimate marked as such, and gw's own refusals answer in Anthropic's error shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { fullEngines } from '../helpers/engines.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const weather = { name: 'get_weather', description: 'The weather', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } } } };
const PNG = 'iVBORw0KGgo=';

for (const engine of fullEngines()) describe(`Messages door over a saved openai provider (${engine.name})`, () => {
  let gw: GatewayApp;
  let client: Anthropic;
  const upstream = () => gw.fake.requests.at(-1)!;

  before(async () => {
    gw = await startGatewayApp({ engine });
    const saved = await gw.app.http
      .post('/v1/providers')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'OpenAI', slug: 'oai', ai_provider_id: 'openai', key: 'sk-openai-saved', configurations: { custom_host: gw.fake.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    client = new Anthropic({ apiKey: gw.app.adminKey, baseURL: gw.app.url, maxRetries: 0 });
  });
  after(() => gw?.close());

  it('translates system blocks, tools, tool_choice and thinking to chat, and the tool call back to a tool_use block', async () => {
    const before = gw.logs.length;
    const message = await client.messages.create({
      model: '@oai/gpt-4o',
      max_tokens: 500,
      system: [
        { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      tools: [weather],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 8000 },
      stop_sequences: ['END'],
      metadata: { user_id: 'user-7' },
    });
    const sent = upstream().body;
    assert.equal(upstream().path, '/v1/chat/completions');
    assert.equal(upstream().headers.authorization, 'Bearer sk-openai-saved');
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'You are helpful.\nBe brief.' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
    assert.deepEqual(sent.tools, [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: weather.input_schema } }]);
    assert.deepEqual([sent.tool_choice, sent.parallel_tool_calls, sent.reasoning_effort, sent.stop, sent.user], ['required', false, 'medium', ['END'], 'user-7']);
    assert.equal(sent.thinking, undefined, 'OpenAI takes reasoning_effort only');
    assert.deepEqual([sent.max_completion_tokens, sent.max_tokens], [500, undefined]);
    assert.equal(message.type, 'message');
    assert.match(message.id, /^msg_/);
    assert.deepEqual(message.content, [{ type: 'tool_use', id: 'call_fake_1', name: 'get_weather', input: { location: 'Paris' } }]);
    assert.equal(message.stop_reason, 'tool_use');
    assert.deepEqual(message.usage, { input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.endpoint, 'messages');
    assert.deepEqual([entry.provider, entry.model, entry.prompt_tokens, entry.completion_tokens], ['openai', 'gpt-4o', FAKE_USAGE.prompt_tokens, FAKE_USAGE.completion_tokens]);
    assert.ok(entry.cost > 0, `cost ${entry.cost}`);
  });

  it('sends tool results as tool messages after the assistant tool calls, images and PDFs as content parts', async () => {
    const message = await client.messages.create({
      model: '@oai/gpt-4o',
      max_tokens: 100,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, { type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: '21C' }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'report.pdf' },
            { type: 'text', text: 'And this?' },
          ],
        },
      ],
    });
    assert.deepEqual(upstream().body.messages, [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '21C' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'report.pdf' } },
          { type: 'text', text: 'And this?' },
        ],
      },
    ]);
    assert.equal(message.type, 'message');
  });

  it("sends max_tokens as max_completion_tokens, which OpenAI's reasoning models require", async () => {
    const message = await client.messages.create({ model: '@oai/gpt-5', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'adaptive' } as never, output_config: { effort: 'low' } } as never);
    assert.equal(message.type, 'message');
    assert.deepEqual([upstream().body.max_completion_tokens, upstream().body.max_tokens, upstream().body.reasoning_effort], [300, undefined, 'low']);
  });

  it('streams text as Anthropic events, in order, with usage at the end', async () => {
    const res = await fetch(`${gw.app.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.app.adminKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: '@oai/gpt-4o', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'one two' }] }),
    });
    assert.equal(res.status, 200);
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => {
        const [name, data] = frame.split('\n');
        const payload = JSON.parse(data!.slice(6)) as { type: string };
        assert.equal(name, `event: ${payload.type}`);
        return payload as { type: string; [key: string]: unknown };
      });
    assert.deepEqual(
      [...new Set(events.map((event) => event.type))],
      ['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
    );
    const text = events.filter((event) => event.type === 'content_block_delta').map((event) => (event.delta as { text: string }).text).join('');
    assert.equal(text, 'You said: one two');
    assert.deepEqual(events.find((event) => event.type === 'message_delta'), {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('streams a tool call through the SDK as a tool_use block assembled from input_json_delta', async () => {
    const stream = client.messages.stream({ model: '@oai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, [{ type: 'tool_use', id: 'call_fake_1', name: 'get_weather', input: { location: 'Paris' } }]);
    assert.equal(final.stop_reason, 'tool_use');
    assert.equal(final.usage.output_tokens, FAKE_USAGE.completion_tokens);
    assert.equal(upstream().body.stream, true);
  });

  it('estimates count_tokens where the provider has no counter, and says so', async () => {
    const calls = gw.fake.requests.length;
    const { data, response } = await client.messages.countTokens({ model: '@oai/gpt-4o', system: 'abcdefgh', messages: [{ role: 'user', content: 'abcdefghijklmnop' }] }).withResponse();
    assert.equal(data.input_tokens, 6);
    assert.equal(response.headers.get('x-gw-token-count'), 'estimate');
    assert.equal(gw.fake.requests.length, calls);
  });

  it('refuses an Anthropic server tool at an OpenAI target, naming the field and the provider', async () => {
    await assert.rejects(
      client.messages.create({ model: '@oai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Search' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }),
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.BadRequestError, String(error));
        const body = error.error as { type: string; error: { type: string; message: string } };
        assert.equal(body.type, 'error');
        assert.equal(body.error.type, 'invalid_request_error');
        assert.match(body.error.message, /openai.*web_search_20250305.*tools\[0\]/);
        return true;
      },
    );
  });

  it("answers gw's own refusals in Anthropic's shape: a bad key, an invalid body, an upstream rate limit", async () => {
    const bad = new Anthropic({ apiKey: 'gw-not-a-key', baseURL: gw.app.url, maxRetries: 0 });
    await assert.rejects(bad.messages.create({ model: '@oai/gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
      assert.equal((error.error as { error: { type: string } }).error.type, 'authentication_error');
      return true;
    });
    await assert.rejects(client.messages.create({ model: '@oai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] } as never), (error: unknown) => {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.match((error.error as { error: { message: string } }).error.message, /max_tokens/);
      return true;
    });
    gw.fake.next({ kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '7' } });
    await assert.rejects(client.messages.create({ model: '@oai/gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError, String(error));
      assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error');
      assert.equal(error.headers?.get('retry-after'), '7');
      return true;
    });
  });

  it('reserves max_tokens against a token limit, and refuses past it in Anthropic shape before any upstream call', async () => {
    const policy = await gw.app.http
      .post('/v2/policies/rate-limits')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'messages tpm', type: 'tokens', unit: 'hour', value: 1000, conditions: [{ key: 'metadata.test', value: 'messages-tpm' }] });
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const tagged = { headers: { 'x-gw-metadata': JSON.stringify({ test: 'messages-tpm' }) } };
    const calls = gw.fake.requests.length;
    await assert.rejects(client.messages.create({ model: '@oai/gpt-4o', max_tokens: 5000, messages: [{ role: 'user', content: 'Hi' }] }, tagged), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError, String(error));
      assert.equal((error.error as { type: string; error: { type: string } }).error.type, 'rate_limit_error');
      return true;
    });
    assert.equal(gw.fake.requests.length, calls, 'refused before the upstream call');
    const small = await client.messages.create({ model: '@oai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }, tagged);
    assert.equal(small.type, 'message');
  });

  it('denies through an input guardrail with 446 in Anthropic shape, hook_results beside', async () => {
    const config = JSON.stringify({ provider: '@oai', input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } }] });
    const calls = gw.fake.requests.length;
    const res = await fetch(`${gw.app.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.app.adminKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-gw-config': config },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a forbidden word' }] }),
    });
    assert.equal(res.status, 446);
    const body = (await res.json()) as { type: string; error: { type: string; message: string }; hook_results: { before_request_hooks: unknown[] } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.hook_results.before_request_hooks.length, 1);
    assert.equal(gw.fake.requests.length, calls);
  });

  it('answers HEAD / with 200 and lists models in Anthropic shape for Anthropic clients', async () => {
    const head = await fetch(`${gw.app.url}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const page = await client.models.list();
    const ids = page.data.map((model) => model.id);
    assert.ok(ids.length > 0);
    assert.ok(ids.every((id) => id.startsWith('@')), ids.join(','));
    assert.equal(page.data[0]!.type, 'model');
  });
});
