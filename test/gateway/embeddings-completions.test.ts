/**
 * POST /v1/embeddings and the legacy POST /v1/completions end to end with the official `openai`
 * client, over fake upstreams of each provider family, every answer checked against OpenAI's own
 * schemas (CreateEmbeddingResponse, CreateCompletionResponse); logged with usage and endpoint,
 * cached by a config, and refused with the spec's error shape when the input is wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeEmbedders } from '../helpers/fake-embedders.js';
import { startFakeGemini } from '../helpers/fake-gemini.js';
import { FAKE_COMPLETION_USAGE } from '../helpers/fake-openai-more.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { assertOpenAiShape } from '../helpers/openai-reference.js';
import type { RecordingServer } from '../helpers/recording-server.js';

/** The raw JSON gw answered (the client decodes base64 vectors, so shape checks read the wire). */
async function rawJson<T>(promise: { asResponse(): Promise<Response> }): Promise<T> {
  return (await (await promise.asResponse()).json()) as T;
}

/**
 * A streamed text_completion event against OpenAI's schema. OpenAI's own streams send
 * `finish_reason: null` until the last chunk, which its schema does not list: that one value is
 * read as absent; everything else is checked as it is.
 */
function assertChunkShape(chunk: OpenAI.Completion): void {
  assertOpenAiShape('CreateCompletionResponse', { ...chunk, choices: chunk.choices.map((choice) => ({ ...choice, finish_reason: choice.finish_reason ?? 'stop' })) });
}

for (const engine of fullEngines()) {
  describe(`embeddings and legacy completions through gw (${engine.name})`, () => {
    let gw: GatewayApp;
    let embedders: RecordingServer;
    let gemini: RecordingServer;
    before(async () => {
      gw = await startGatewayApp({ engine });
      embedders = await startFakeEmbedders();
      gemini = await startFakeGemini();
    });
    after(async () => {
      await gw.close();
      await embedders.close();
      await gemini.close();
    });
    const openai = () => gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
    const other = (provider: string, headers: Record<string, string> = {}) => gw.openai({ 'x-gw-provider': provider, 'x-gw-custom-host': embedders.url, ...headers });

    it('openai: the client default (base64) is encoded by gw from float vectors, decoded by the client, and logged with usage', async () => {
      const before = gw.logs.length;
      const result = await openai().embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
      assert.deepEqual(result.data[0]!.embedding, [5, 0.5, -0.5]);
      const upstream = gw.fake.requests.at(-1)!;
      assert.match(upstream.path, /\/embeddings$/);
      assert.equal(upstream.body.encoding_format, 'float', 'gw always asks the provider for floats');
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.endpoint, 'embeddings');
      assert.equal(entry.provider, 'openai');
      assert.equal(entry.prompt_tokens, 5);
      assert.equal(entry.total_tokens, 5);
      assert.ok(entry.cost > 0, 'text-embedding-3-small is priced');
    });

    it('openai: float answers match CreateEmbeddingResponse; arrays and dimensions pass through in order', async () => {
      const body = await rawJson<OpenAI.CreateEmbeddingResponse>(openai().embeddings.create({ model: 'text-embedding-3-large', input: ['a', 'bbb'], dimensions: 4, encoding_format: 'float' }));
      assertOpenAiShape('CreateEmbeddingResponse', body);
      assert.deepEqual(body.data.map((item) => item.embedding), [[1, 0.5, -0.5, -0.75], [3, 1.5, -0.5, -0.75]]);
      assert.equal(gw.fake.requests.at(-1)!.body.dimensions, 4);
      // A stray `stream: true` does not make an embeddings answer a stream.
      const unstreamed = await rawJson<OpenAI.CreateEmbeddingResponse>(openai().embeddings.create({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'float', stream: true } as OpenAI.EmbeddingCreateParams));
      assertOpenAiShape('CreateEmbeddingResponse', unstreamed);
      const tokens = await rawJson<OpenAI.CreateEmbeddingResponse>(openai().embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3, 4]], encoding_format: 'float' }));
      assertOpenAiShape('CreateEmbeddingResponse', tokens);
      assert.deepEqual(gw.fake.requests.at(-1)!.body.input, [[1, 2, 3, 4]]);
    });

    it('azure-openai: the deployment embeddings URL with the api-key header', async () => {
      const client = gw.openai({ 'x-gw-provider': 'azure-openai', 'x-gw-custom-host': gw.fake.origin, 'x-gw-cloud1-deployment-id': 'emb', 'x-gw-cloud1-api-version': '2024-10-21' });
      const body = await rawJson<OpenAI.CreateEmbeddingResponse>(client.embeddings.create({ model: 'text-embedding-3-small', input: 'az', encoding_format: 'float' }));
      assertOpenAiShape('CreateEmbeddingResponse', body);
      const upstream = gw.fake.requests.at(-1)!;
      assert.equal(upstream.path, '/openai/deployments/emb/embeddings?api-version=2024-10-21');
      assert.equal(upstream.headers['api-key'], 'sk-upstream');
    });

    it('an OpenAI-compatible host (together-ai) embeds on its /embeddings', async () => {
      const body = await rawJson<OpenAI.CreateEmbeddingResponse>(gw.openai({ 'x-gw-provider': 'together-ai', 'x-gw-custom-host': gw.fake.url }).embeddings.create({ model: 'BAAI/bge-base-en-v1.5', input: 'x', encoding_format: 'float' }));
      assertOpenAiShape('CreateEmbeddingResponse', body);
      assert.equal(gw.fake.requests.at(-1)!.path, '/v1/embeddings');
    });

    it('google, vertex-ai, bedrock (Titan and Cohere) and cohere (v2 and a /v1 host) answer OpenAI lists', async () => {
      const vertex = { 'x-gw-cloud2-project-id': 'p1', 'x-gw-cloud2-region': 'us-central1' };
      const bedrock = { 'x-gw-cloud3-secret-access-key': 'secret', 'x-gw-cloud3-region': 'us-east-1' };
      const cases: Array<{ client: OpenAI; model: string; input: string | string[]; path: RegExp; vectors: number[][]; tokens: number }> = [
        { client: other('google'), model: 'gemini-embedding-001', input: ['ab', 'c'], path: /^\/v1beta\/models\/gemini-embedding-001:batchEmbedContents$/, vectors: [[2, 0.5, -0.5], [1, 1.5, -0.5]], tokens: 2 },
        { client: other('vertex-ai', vertex), model: 'text-embedding-005', input: ['ab', 'c'], path: /\/projects\/p1\/locations\/us-central1\/publishers\/google\/models\/text-embedding-005:predict$/, vectors: [[2, 0.5, -0.5], [1, 1.5, -0.5]], tokens: 4 },
        { client: other('bedrock', bedrock), model: 'amazon.titan-embed-text-v2:0', input: 'abcd', path: /^\/model\/amazon\.titan-embed-text-v2%3A0\/invoke$/, vectors: [[4, 0.5, -0.5]], tokens: 3 },
        { client: other('bedrock', bedrock), model: 'cohere.embed-english-v3', input: ['ab', 'c'], path: /^\/model\/cohere\.embed-english-v3\/invoke$/, vectors: [[2, 0.5, -0.5], [1, 1.5, -0.5]], tokens: 2 },
        { client: other('cohere'), model: 'embed-v4.0', input: ['ab', 'c'], path: /^\/v2\/embed$/, vectors: [[2, 0.5, -0.5], [1, 1.5, -0.5]], tokens: 8 },
        { client: other('cohere', { 'x-gw-custom-host': `${embedders.url}/v1` }), model: 'embed-english-v3.0', input: 'ab', path: /^\/v1\/embed$/, vectors: [[2, 0.5, -0.5]], tokens: 4 },
      ];
      for (const item of cases) {
        const before = gw.logs.length;
        const body = await rawJson<OpenAI.CreateEmbeddingResponse>(item.client.embeddings.create({ model: item.model, input: item.input, encoding_format: 'float' }));
        assertOpenAiShape('CreateEmbeddingResponse', body);
        assert.match(embedders.received.at(-1)!.path, item.path);
        assert.deepEqual(body.data.map((entry) => entry.embedding), item.vectors, item.model);
        assert.equal(body.usage.prompt_tokens, item.tokens, item.model);
        assert.equal((await logsSettled(gw, before + 1)).at(-1)!.prompt_tokens, item.tokens);
      }
      // And base64 from a provider that only answers floats.
      const decoded = await other('cohere').embeddings.create({ model: 'embed-v4.0', input: 'abc' });
      assert.deepEqual(decoded.data[0]!.embedding, [3, 0.5, -0.5]);
    });

    it('refuses bad input with the spec error shape, before any upstream call', async () => {
      const calls = gw.fake.requests.length + embedders.received.length;
      const refused = (param: string) => (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
        assert.equal((error.error as { param?: string }).param, param);
        return true;
      };
      await assert.rejects(openai().embeddings.create({ model: 'text-embedding-3-small', input: '' }), refused('input'));
      await assert.rejects(openai().embeddings.create({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'hex' as 'float' }), refused('encoding_format'));
      await assert.rejects(other('google').embeddings.create({ model: 'gemini-embedding-001', input: [[1, 2]] }), refused('input'));
      await assert.rejects(other('bedrock', { 'x-gw-cloud3-secret-access-key': 's', 'x-gw-cloud3-region': 'us-east-1' }).embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: ['a', 'b'] }), refused('input'));
      assert.equal(gw.fake.requests.length + embedders.received.length, calls);
    });

    it('a provider without embeddings answers 400 embeddings_unsupported', async () => {
      await assert.rejects(gw.openai({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': embedders.url }).embeddings.create({ model: 'claude-sonnet-4-5', input: 'x' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
        assert.equal(error.code, 'embeddings_unsupported');
        assert.match(error.message, /anthropic has no embeddings/);
        return true;
      });
    });

    it('a config caches embeddings (simple cache), apart from chat answers', async () => {
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, cache: { mode: 'simple', max_age: 60 } };
      const client = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify(config) } });
      const request = { model: 'text-embedding-3-small', input: 'cache me please', encoding_format: 'float' as const };
      const calls = gw.fake.requests.length;
      const miss = await client.embeddings.create(request).withResponse();
      const hit = await client.embeddings.create(request).withResponse();
      assert.equal(miss.response.headers.get('x-gw-cache-status'), 'MISS');
      assert.equal(hit.response.headers.get('x-gw-cache-status'), 'HIT');
      assert.deepEqual(hit.data.data, miss.data.data);
      assert.equal(gw.fake.requests.length, calls + 1);
    });

    it('a fallback config moves past a provider without embeddings to one that has them', async () => {
      const config: ConfigNode = {
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'anthropic', api_key: 'sk-ant', custom_host: embedders.url },
          { provider: 'openai', api_key: 'sk', custom_host: gw.fake.url },
        ],
      };
      const client = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify(config) } });
      const { data, response } = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'fall', encoding_format: 'float' }).withResponse();
      assert.deepEqual(data.data[0]!.embedding, [4, 0.5, -0.5]);
      assert.equal(response.headers.get('x-gw-provider'), 'openai');
      assert.equal(response.headers.get('x-gw-last-used-option-index'), '1');
    });

    it('a token rate limit counts the real usage of embeddings and refuses past it', async () => {
      const created = await gw.app.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': gw.app.adminKey })
        .send({ name: 'embed-tokens', type: 'tokens', unit: 'hour', value: 10, conditions: [{ key: 'metadata.test', value: 'embed-tokens' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, 'x-gw-metadata': JSON.stringify({ test: 'embed-tokens' }) });
      // Two short inputs reserve 2 tokens; the fake answers usage 10, which the settlement counts.
      await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });
      const calls = gw.fake.requests.length;
      await assert.rejects(client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 429, String(error));
        assert.equal(error.code, 'rate_limit_exceeded');
        return true;
      });
      assert.equal(gw.fake.requests.length, calls, 'refused before the upstream call');
    });

    it('completions on OpenAI go to its native /completions, plain and streamed, as text_completion', async () => {
      const before = gw.logs.length;
      const body = await rawJson<OpenAI.Completion>(openai().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this', max_tokens: 7, echo: false }));
      assertOpenAiShape('CreateCompletionResponse', body);
      const upstream = gw.fake.requests.at(-1)!;
      assert.equal(upstream.path, '/v1/completions');
      assert.equal(upstream.body.prompt, 'Say this');
      assert.equal(upstream.body.messages, undefined);
      assert.deepEqual({ text: body.choices[0]!.text, finish: body.choices[0]!.finish_reason, usage: body.usage }, { text: ' echo of Say this', finish: 'length', usage: FAKE_COMPLETION_USAGE });
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.endpoint, 'completions');
      assert.equal(entry.total_tokens, FAKE_COMPLETION_USAGE.total_tokens);

      const stream = await openai().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: ['one', 'two'], stream: true, stream_options: { include_usage: true } });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        assertChunkShape(chunk);
        text += chunk.choices[0]?.text ?? '';
        usage = chunk.usage ?? usage;
      }
      assert.equal(text, ' echo of one two');
      assert.deepEqual(usage, FAKE_COMPLETION_USAGE);
      assert.deepEqual(gw.fake.requests.at(-1)!.body.prompt, ['one', 'two']);
    });

    it('completions on a provider without the endpoint (google) are translated to chat, plain and streamed', async () => {
      const client = gw.openai({ 'x-gw-provider': 'google', 'x-gw-custom-host': gemini.url });
      const body = await rawJson<OpenAI.Completion>(client.completions.create({ model: 'gemini-2.5-flash', prompt: 'Hello', max_tokens: 16 }));
      assertOpenAiShape('CreateCompletionResponse', body);
      assert.equal(body.object, 'text_completion');
      assert.equal(body.choices[0]!.text, 'Hello from the fake Gemini upstream');
      assert.equal(body.usage!.total_tokens, 15);
      const upstream = gemini.received.at(-1)!;
      assert.match(upstream.path, /:generateContent$/);
      assert.deepEqual((upstream.body as { contents: unknown }).contents, [{ role: 'user', parts: [{ text: 'Hello' }] }]);

      let text = '';
      for await (const chunk of await client.completions.create({ model: 'gemini-2.5-flash', prompt: 'Hello', stream: true })) {
        assertChunkShape(chunk);
        assert.equal(chunk.object, 'text_completion');
        text += chunk.choices[0]?.text ?? '';
      }
      assert.equal(text, 'Hello from the fake Gemini upstream');
    });

    it('completions run input guardrails on the prompt (446, no upstream call) and output guardrails on the text', async () => {
      const words = (list: string[]) => ({ checks: [{ id: 'default.contains', parameters: { words: list, operator: 'none' } }], actions: { deny: true } });
      const config = (extra: Record<string, unknown>) => JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, ...extra });
      const send = (extra: Record<string, unknown>, prompt: string) =>
        gw.app.http.post('/v1/completions').set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': config(extra) }).send({ model: 'gpt-3.5-turbo-instruct', prompt });
      const calls = gw.fake.requests.length;
      const denied = await send({ input_guardrails: [words(['forbidden'])] }, 'say forbidden things');
      assert.equal(denied.status, 446, JSON.stringify(denied.body));
      assert.equal(denied.body.error.code, 'guardrail_denied');
      assert.equal(gw.fake.requests.length, calls, 'a denied prompt goes nowhere');
      const answerDenied = await send({ output_guardrails: [words(['echo'])] }, 'fine');
      assert.equal(answerDenied.status, 446, 'the native answer text " echo of fine" is judged');
      const passed = await send({ input_guardrails: [words(['forbidden'])] }, 'nice');
      assert.equal(passed.status, 200);
      assert.equal(passed.body.object, 'text_completion');
      assert.equal(passed.body.hook_results.before_request_hooks[0].verdict, true);
    });

    it('a cached completion answers a streamed request as text_completion events, apart from chat', async () => {
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, cache: { mode: 'simple', max_age: 60 } };
      const client = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify(config) } });
      const calls = gw.fake.requests.length;
      const first = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'cached prompt' }).withResponse();
      assert.equal(first.response.headers.get('x-gw-cache-status'), 'MISS');
      const replay = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'cached prompt', stream: true }).withResponse();
      assert.equal(replay.response.headers.get('x-gw-cache-status'), 'HIT');
      let text = '';
      for await (const chunk of replay.data) {
        assertChunkShape(chunk);
        text += chunk.choices[0]?.text ?? '';
      }
      assert.equal(text, first.data.choices[0]!.text);
      assert.equal(gw.fake.requests.length, calls + 1, 'the replay made no upstream call');
      // The same words as a chat request are another cache entry (the endpoint is part of the key).
      const chat = await client.chat.completions.create({ model: 'gpt-3.5-turbo-instruct', messages: [{ role: 'user', content: 'cached prompt' }] }).withResponse();
      assert.equal(chat.response.headers.get('x-gw-cache-status'), 'MISS');
    });

    it('completions a translation cannot carry are refused with 400 naming the field', async () => {
      const client = gw.openai({ 'x-gw-provider': 'google', 'x-gw-custom-host': gemini.url });
      const calls = gemini.received.length;
      for (const [extra, param] of [[{ prompt: ['a', 'b'] }, 'prompt'], [{ prompt: 'x', suffix: 'end' }, 'suffix'], [{ prompt: 'x', echo: true }, 'echo']] as const) {
        await assert.rejects(client.completions.create({ model: 'gemini-2.5-flash', ...extra } as OpenAI.CompletionCreateParamsNonStreaming), (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
          assert.equal((error.error as { param?: string }).param, param);
          return true;
        });
      }
      await assert.rejects(openai().completions.create({ model: 'gpt-3.5-turbo-instruct' } as unknown as OpenAI.CompletionCreateParamsNonStreaming), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400);
      assert.equal(gemini.received.length, calls);
    });
  });
}
