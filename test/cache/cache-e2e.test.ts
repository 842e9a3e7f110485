/**
 * The response cache end to end: the official `openai` client through gw, fake upstreams on
 * 127.0.0.1. Memory backend on SQLite+memory, Redis backend on Postgres+Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { fullEngines } from '../helpers/engines.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startFaultUpstream, type Behaviour, type FaultUpstream } from '../helpers/fault-upstream.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { privateDb } from '../helpers/test-db.js';
import { workspaceWithKey } from '../admin/admin-fixtures.js';

for (const engine of fullEngines()) {
  describe(`response cache through gw (${engine.name})`, () => {
    let app: TestApp;
    const upstreams: FaultUpstream[] = [];
    const logs: RequestLogEntry[] = [];
    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      recordLogsInto(app, logs);
    });
    after(async () => {
      await app?.close();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    });

    async function upstream(script: Behaviour[] | ((index: number) => Behaviour)) {
      const started = await startFaultUpstream(script);
      upstreams.push(started);
      return started;
    }

    function gw(config: ConfigNode, headers: Record<string, string> = {}) {
      return new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config), ...headers } });
    }

    /** A unique question per test, so tests never see each other's entries. */
    const question = () => `question ${randomBytes(4).toString('hex')}`;

    async function ask(config: ConfigNode, content: string, headers: Record<string, string> = {}) {
      const { data, response } = await gw(config, headers).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
      return { content: data.choices[0]!.message.content, status: response.headers.get('x-gw-cache-status') };
    }

    async function askStreamed(config: ConfigNode, content: string, headers: Record<string, string> = {}) {
      const { data: stream, response } = await gw(config, headers)
        .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = '';
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { content: text, status: response.headers.get('x-gw-cache-status'), usage };
    }

    test('MISS then HIT; a streamed request is answered from the cache as SSE', async () => {
      const fake = await upstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple', max_age: 60 } };
      const q = question();
      assert.deepEqual(await ask(config, q), { content: 'answer 0', status: 'MISS' });
      assert.deepEqual(await ask(config, q), { content: 'answer 0', status: 'HIT' });
      const { response: hit } = await gw(config).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: q }] }).withResponse();
      assert.equal(hit.headers.get('x-gw-cache-status'), 'HIT');
      assert.equal(hit.headers.get('x-gw-provider'), 'openai', 'a cache hit names the provider of the leaf that served');
      const streamed = await askStreamed(config, q);
      assert.equal(streamed.content, 'answer 0');
      assert.equal(streamed.status, 'HIT');
      assert.deepEqual(streamed.usage, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
      assert.equal(fake.received.length, 1);
      assert.equal((await ask({ ...config, cache: undefined }, q)).status, 'DISABLED');
      if (engine.redisUrl) {
        const keys = await app.services.redis!.keys(`${app.services.config.redisPrefix}cache:*`);
        assert.ok(keys.length > 0, 'entries are in Redis');
      }
    });

    test("a hit on a saved provider's answer names that provider in the log and x-gw-provider, and prices it", async () => {
      const fake = await upstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      const slug = `cached-${randomBytes(3).toString('hex')}`;
      const saved = await app.http.post('/v1/providers').set({ 'x-gw-api-key': ADMIN_KEY }).send({ name: slug, slug, ai_provider_id: 'openai', key: 'sk-saved', custom_host: fake.url });
      assert.equal(saved.status, 201, saved.text);
      // The leaf names the saved provider only: nothing in the config says which family it is.
      const config: ConfigNode = { virtual_key: slug, cache: { mode: 'simple', max_age: 60 } };
      const q = question();
      const logged = async (status: string) => {
        await app.services.requestLogs.flush();
        return logs.filter((entry) => entry.cache_status === status).at(-1)!;
      };
      assert.deepEqual(await ask(config, q), { content: 'answer 0', status: 'MISS' });
      const miss = await logged('MISS');
      assert.equal(miss.provider, 'openai');

      const { response } = await gw(config).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: q }] }).withResponse();
      assert.equal(response.headers.get('x-gw-cache-status'), 'HIT');
      assert.equal(response.headers.get('x-gw-provider'), 'openai');
      const hit = await logged('HIT');
      assert.equal(hit.provider, 'openai', 'the hit says whose answer it served');
      assert.ok(hit.cost > 0);
      assert.equal(hit.cost, miss.cost, 'priced as the answer first cost');
      const streamed = await askStreamed(config, q);
      assert.equal(streamed.status, 'HIT');
      assert.equal((await logged('HIT')).provider, 'openai');
      assert.equal(fake.received.length, 1);
    });

    test('a completed stream is stored; a stream cut in the middle never is', async () => {
      const fake = await upstream((index) => (index === 0 ? { kind: 'cut-stream' } : { kind: 'stream', content: `full answer ${index}` }));
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
      const q = question();
      await assert.rejects(askStreamed(config, q));
      const second = await askStreamed(config, q);
      assert.equal(second.status, 'MISS', 'the cut stream left nothing behind');
      assert.equal(second.content, 'full answer 1');
      const third = await ask(config, q);
      assert.deepEqual(third, { content: 'full answer 1', status: 'HIT' });
      assert.equal(fake.received.length, 2);
    });

    test('errors are never cached', async () => {
      const fake = await upstream([{ kind: 'status', status: 500 }, { kind: 'ok', content: 'recovered' }]);
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
      const q = question();
      await assert.rejects(ask(config, q), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 500);
      assert.deepEqual(await ask(config, q), { content: 'recovered', status: 'MISS' });
    });

    test('metadata is in the key unless a namespace replaces it; force refresh stores anew', async () => {
      const fake = await upstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
      const q = question();
      const meta = (user: string) => ({ 'x-gw-metadata': JSON.stringify({ user }) });
      assert.equal((await ask(config, q, meta('a'))).status, 'MISS');
      assert.equal((await ask(config, q, meta('b'))).status, 'MISS');
      assert.equal((await ask(config, q, { ...meta('a'), 'x-gw-cache-namespace': 'team' })).status, 'MISS');
      assert.equal((await ask(config, q, { ...meta('b'), 'x-gw-cache-namespace': 'team' })).status, 'HIT');
      assert.equal((await ask(config, q, { 'x-gw-cache-namespace': 'other' })).status, 'MISS');
      const refreshed = await ask(config, q, { ...meta('a'), 'x-gw-cache-force-refresh': 'true' });
      assert.equal(refreshed.status, 'REFRESH');
      assert.deepEqual(await ask(config, q, meta('a')), { content: refreshed.content, status: 'HIT' });
    });

    test('the tenant is in the key: another workspace misses what this one cached', async () => {
      const fake = await upstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
      const other = await workspaceWithKey(app, `cache-tenant-${randomBytes(3).toString('hex')}`, ['completions.write']);
      const q = question();
      assert.deepEqual(await ask(config, q), { content: 'answer 0', status: 'MISS' });
      assert.deepEqual(await ask(config, q, { 'x-gw-api-key': other.key }), { content: 'answer 1', status: 'MISS' });
      assert.deepEqual(await ask(config, q, { 'x-gw-api-key': other.key }), { content: 'answer 1', status: 'HIT' });
      assert.deepEqual(await ask(config, q), { content: 'answer 0', status: 'HIT' });
    });

    test('another provider or model is another key', async () => {
      const fake = await upstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
      const q = question();
      assert.equal((await ask(config, q)).status, 'MISS');
      assert.equal((await ask({ ...config, override_params: { model: 'gpt-4o' } }, q)).status, 'MISS');
      assert.equal((await ask({ ...config, provider: 'groq' }, q)).status, 'MISS');
      assert.equal((await ask(config, q)).status, 'HIT');
    });
  });

  if (!engine.redisUrl) {
    describe(`memory cache bound through gw (${engine.name})`, () => {
      test('GW_CACHE_MAX_BYTES bounds the memory cache: the least recently used answer is evicted', async () => {
        // Padded so an entry (key and completion) is about 430 bytes: two fit in 1024, a third evicts the oldest.
        const fake = await startFaultUpstream((index) => ({ kind: 'ok', content: `answer ${index} ${'x'.repeat(60)}` }));
        const small = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_CACHE_MAX_BYTES: '1024' } });
        try {
          const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, cache: { mode: 'simple' } };
          const client = new OpenAI({ baseURL: `${small.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config) } });
          const status = async (content: string) => {
            const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
            return response.headers.get('x-gw-cache-status');
          };
          assert.deepEqual([await status('one'), await status('two'), await status('one')], ['MISS', 'MISS', 'HIT']);
          assert.equal(await status('three'), 'MISS');
          assert.equal(await status('one'), 'HIT', 'used most recently before three came in');
          assert.equal(await status('two'), 'MISS', 'evicted as the least recently used');
        } finally {
          await small.close();
          await fake.close();
        }
      });
    });
  }

  describe(`semantic cache through gw (${engine.name})`, () => {
    const vectorOf = (text: string): number[] => (/weather/i.test(text) ? [1, 0.01 * text.length, 0] : [0, 0, 1]);
    let embeddings: FaultUpstream;
    let chat: FaultUpstream;
    let dir: string;
    let shared: Awaited<ReturnType<typeof privateDb>>;
    before(async () => {
      embeddings = await startFaultUpstream((_index, received) => ({ kind: 'embedding', vector: vectorOf(String(received.body.input)) }));
      chat = await startFaultUpstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
      dir = mkdtempSync(path.join(tmpdir(), 'gw-semantic-e2e-'));
      // Two instances must see one database: a SQLite file, or one Postgres schema.
      shared = engine.databaseUrl ? await privateDb(engine.databaseUrl) : { options: { sqliteFile: path.join(dir, 'gw.sqlite') }, drop: async () => undefined };
    });
    after(async () => {
      await embeddings.close();
      await chat.close();
      await shared.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a similar last user turn is a SEMANTIC HIT, on this instance and on a restarted one', async () => {
      const config: ConfigNode = {
        provider: 'openai',
        api_key: 'sk',
        custom_host: chat.url,
        cache: { mode: 'semantic', similarity_threshold: 0.9, embedding: { provider: 'openai', model: 'text-embedding-3-small', api_key: 'sk-embed', custom_host: embeddings.url } },
      };
      const ask = async (instance: TestApp, content: string) => {
        const client = new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config) } });
        const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
        await instance.services.semanticCache.idle();
        return { content: data.choices[0]!.message.content, status: response.headers.get('x-gw-cache-status') };
      };
      const first = await startTestApp({ engine, sharedDb: shared, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      try {
        assert.equal((await ask(first, 'What is the weather in Oslo?')).status, 'MISS');
        assert.equal(embeddings.received.at(-1)!.headers.authorization, 'Bearer sk-embed');
        const similar = await ask(first, 'What is the weather in Oslo ?');
        assert.equal(similar.status, 'SEMANTIC HIT');
        assert.equal(similar.content, 'answer 0');
        assert.equal((await ask(first, 'Tell me a joke')).status, 'MISS');
      } finally {
        await first.close();
      }
      const second = await startTestApp({ engine, sharedDb: shared, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      try {
        const found = await ask(second, 'what is the weather in Oslo?');
        assert.equal(found.status, 'SEMANTIC HIT', 'the restarted instance finds the stored vector');
        assert.equal(found.content, 'answer 0');
      } finally {
        await second.close();
      }
      assert.equal(chat.received.length, 2);
    });

    test("a semantic hit on a saved provider's answer names that provider, on a restarted instance too", async () => {
      const slug = `semantic-${randomBytes(3).toString('hex')}`;
      const config: ConfigNode = {
        virtual_key: slug,
        cache: { mode: 'semantic', similarity_threshold: 0.9, embedding: { provider: 'openai', model: 'text-embedding-3-small', api_key: 'sk-embed', custom_host: embeddings.url } },
      };
      const ask = async (instance: TestApp, logs: RequestLogEntry[], content: string) => {
        const client = new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config) } });
        const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
        await instance.services.semanticCache.idle();
        await instance.services.requestLogs.flush();
        return { status: response.headers.get('x-gw-cache-status'), provider: response.headers.get('x-gw-provider'), logged: logs.at(-1)!.provider };
      };
      const firstLogs: RequestLogEntry[] = [];
      const first = await startTestApp({ engine, sharedDb: shared, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      try {
        recordLogsInto(first, firstLogs);
        const saved = await first.http.post('/v1/providers').set({ 'x-gw-api-key': ADMIN_KEY }).send({ name: slug, slug, ai_provider_id: 'openai', key: 'sk-saved', custom_host: chat.url });
        assert.equal(saved.status, 201, saved.text);
        assert.deepEqual(await ask(first, firstLogs, 'What is the weather in Bergen?'), { status: 'MISS', provider: 'openai', logged: 'openai' });
        assert.deepEqual(await ask(first, firstLogs, 'What is the weather in Bergen ?'), { status: 'SEMANTIC HIT', provider: 'openai', logged: 'openai' });
      } finally {
        await first.close();
      }
      const secondLogs: RequestLogEntry[] = [];
      const second = await startTestApp({ engine, sharedDb: shared, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      try {
        recordLogsInto(second, secondLogs);
        assert.deepEqual(await ask(second, secondLogs, 'what is the weather in Bergen?'), { status: 'SEMANTIC HIT', provider: 'openai', logged: 'openai' });
      } finally {
        await second.close();
      }
    });
  });
}
