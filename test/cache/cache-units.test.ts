import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient } from 'redis';
import { semanticScopeKey, simpleCacheKey, type CacheScope } from '../../gateway/cache/cache-key.js';
import type { CacheBackend } from '../../gateway/cache/cache-backend.js';
import { chunksToSse, completionToChunks } from '../../gateway/cache/completion-replay.js';
import { MemoryCacheBackend } from '../../gateway/cache/memory-cache-backend.js';
import { RedisCacheBackend } from '../../gateway/cache/redis-cache-backend.js';
import { DEFAULT_MAX_AGE_SECONDS, ResponseCache } from '../../gateway/cache/response-cache.js';
import { StreamAssembler } from '../../gateway/cache/stream-assembler.js';
import type { ChatCompletion } from '../../gateway/providers/types.js';
import { createLogger } from '../../core/logger.js';
import { counterEngines } from '../helpers/engines.js';

const scope: CacheScope = { organisationId: 'org-1', workspaceId: 'ws-1', provider: 'openai' };
const request = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };
const completion: ChatCompletion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello there', refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      finish_reason: 'tool_calls',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};

describe('cache key', () => {
  test('covers provider, model, normalised request and tenant; ignores key order and stream fields', () => {
    const key = simpleCacheKey(scope, request);
    assert.equal(key, simpleCacheKey(scope, { temperature: 0.2, messages: [{ content: 'hi', role: 'user' }], model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } }));
    assert.notEqual(key, simpleCacheKey(scope, { ...request, model: 'gpt-4o' }));
    assert.notEqual(key, simpleCacheKey(scope, { ...request, temperature: 0.3 }));
    assert.notEqual(key, simpleCacheKey({ ...scope, provider: 'anthropic' }, request));
    assert.notEqual(key, simpleCacheKey({ ...scope, customHost: 'http://127.0.0.1:9/v1' }, request));
    assert.notEqual(key, simpleCacheKey({ ...scope, organisationId: 'org-2' }, request));
    assert.notEqual(key, simpleCacheKey({ ...scope, workspaceId: 'ws-2' }, request));
  });

  test('the semantic scope is partitioned like the simple key, and by embedding model', () => {
    const rest = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: null }] };
    const key = semanticScopeKey(scope, rest, 'openai/text-embedding-3-small');
    assert.equal(key, semanticScopeKey(scope, { ...rest, stream: true }, 'openai/text-embedding-3-small'));
    for (const other of [
      semanticScopeKey({ ...scope, organisationId: 'org-2' }, rest, 'openai/text-embedding-3-small'),
      semanticScopeKey({ ...scope, workspaceId: 'ws-2' }, rest, 'openai/text-embedding-3-small'),
      semanticScopeKey({ ...scope, provider: 'anthropic' }, rest, 'openai/text-embedding-3-small'),
      semanticScopeKey({ ...scope, namespace: 'team' }, rest, 'openai/text-embedding-3-small'),
      semanticScopeKey({ ...scope, metadata: { user: 'a' } }, rest, 'openai/text-embedding-3-small'),
      semanticScopeKey(scope, { ...rest, model: 'gpt-4o' }, 'openai/text-embedding-3-small'),
      semanticScopeKey(scope, rest, 'openai/text-embedding-3-large'),
    ]) {
      assert.notEqual(other, key);
    }
    assert.equal(
      semanticScopeKey({ ...scope, namespace: 'team', metadata: { user: 'a' } }, rest, 'm'),
      semanticScopeKey({ ...scope, namespace: 'team', metadata: { user: 'b' } }, rest, 'm'),
      'a namespace replaces the metadata here too',
    );
  });

  test('the namespace partitions the cache and replaces metadata in the key', () => {
    const withMetadata = simpleCacheKey({ ...scope, metadata: { user: 'a' } }, request);
    assert.notEqual(withMetadata, simpleCacheKey({ ...scope, metadata: { user: 'b' } }, request));
    const nsA = simpleCacheKey({ ...scope, namespace: 'a', metadata: { user: 'a' } }, request);
    assert.equal(nsA, simpleCacheKey({ ...scope, namespace: 'a', metadata: { user: 'b' } }, request));
    assert.notEqual(nsA, simpleCacheKey({ ...scope, namespace: 'b' }, request));
  });
});

describe('cache entries', () => {
  test('keep the provider that answered; entries stored before it was kept still read, without one', async () => {
    const backend = new MemoryCacheBackend(1 << 20, () => 0);
    const cache = new ResponseCache(backend, undefined, createLogger('silent'));
    const settings = { mode: 'simple' as const };
    await (await cache.lookup({ settings, scope, request, forceRefresh: false })).store(completion, 'azure-openai');
    const hit = await cache.lookup({ settings, scope, request, forceRefresh: false });
    assert.equal(hit.hitProvider, 'azure-openai');
    assert.deepEqual(hit.hit, completion);

    const legacyRequest = { ...request, model: 'legacy' };
    await backend.set(simpleCacheKey(scope, legacyRequest), JSON.stringify(completion), 60);
    const legacy = await cache.lookup({ settings, scope, request: legacyRequest, forceRefresh: false });
    assert.equal(legacy.status, 'HIT');
    assert.equal(legacy.hitProvider, undefined);
    assert.deepEqual(legacy.hit, completion);
  });
});

describe('memory backend', () => {
  test('is bounded in bytes and evicts the least recently used entry', async () => {
    const backend = new MemoryCacheBackend(300);
    const value = 'x'.repeat(90);
    await backend.set('k1', value, 60);
    await backend.set('k2', value, 60);
    await backend.set('k3', value, 60);
    assert.equal(await backend.get('k1'), value, 'k1 is now the most recently used');
    await backend.set('k4', value, 60);
    assert.equal(await backend.get('k2'), undefined, 'k2 was least recently used');
    assert.equal(await backend.get('k1'), value);
    assert.equal(await backend.get('k4'), value);
    assert.ok(backend.size <= 300);
  });

  test("the response cache stores with the config's max_age, else seven days", async () => {
    let now = 0;
    const cache = new ResponseCache(new MemoryCacheBackend(1 << 20, () => now), undefined, createLogger('silent'));
    const lookup = (settings: { mode: 'simple'; max_age?: number }, model: string) =>
      cache.lookup({ settings, scope, request: { ...request, model }, forceRefresh: false });
    await (await lookup({ mode: 'simple', max_age: 30 }, 'short')).store(completion);
    await (await lookup({ mode: 'simple' }, 'default')).store(completion);
    now = 29_999;
    assert.equal((await lookup({ mode: 'simple', max_age: 30 }, 'short')).status, 'HIT');
    now = 30_000;
    assert.equal((await lookup({ mode: 'simple', max_age: 30 }, 'short')).status, 'MISS');
    now = DEFAULT_MAX_AGE_SECONDS * 1000 - 1;
    assert.equal((await lookup({ mode: 'simple' }, 'default')).status, 'HIT');
    now = DEFAULT_MAX_AGE_SECONDS * 1000;
    assert.equal((await lookup({ mode: 'simple' }, 'default')).status, 'MISS');
  });

  test('entries expire after max_age', async () => {
    let now = 0;
    const backend = new MemoryCacheBackend(10_000, () => now);
    await backend.set('k', 'v', 5);
    now = 4_999;
    assert.equal(await backend.get('k'), 'v');
    now = 5_000;
    assert.equal(await backend.get('k'), undefined);
  });
});

for (const engine of counterEngines()) {
  describe(`response cache (${engine.name})`, () => {
    async function withBackend(work: (backend: CacheBackend) => Promise<void>) {
      if (!engine.redisUrl) return work(new MemoryCacheBackend(1 << 20));
      const redis = createClient({ url: engine.redisUrl });
      await redis.connect();
      const prefix = `gwtest:${Math.random().toString(16).slice(2)}:`;
      try {
        await work(new RedisCacheBackend(redis, prefix));
        if (engine.redisUrl) {
          const keys = await redis.keys(`${prefix}cache:*`);
          assert.ok(keys.length > 0, 'entries live in Redis under the prefix');
          const ttl = await redis.ttl(keys[0]!);
          assert.ok(ttl > 0 && ttl <= 60, `expires with max_age (ttl ${ttl})`);
          await redis.del(keys);
        }
      } finally {
        await redis.quit();
      }
    }

    test('DISABLED without settings; MISS then HIT; REFRESH skips the lookup and stores', async () => {
      await withBackend(async (backend) => {
        const cache = new ResponseCache(backend, undefined, createLogger('silent'));
        const disabled = await cache.lookup({ settings: undefined, scope, request, forceRefresh: false });
        assert.equal(disabled.status, 'DISABLED');
        const settings = { mode: 'simple' as const, max_age: 60 };
        const miss = await cache.lookup({ settings, scope, request, forceRefresh: false });
        assert.equal(miss.status, 'MISS');
        await miss.store(completion);
        const hit = await cache.lookup({ settings, scope, request: { ...request, stream: true }, forceRefresh: false });
        assert.equal(hit.status, 'HIT');
        assert.deepEqual(hit.hit, completion);
        const refresh = await cache.lookup({ settings, scope, request, forceRefresh: true });
        assert.equal(refresh.status, 'REFRESH');
        assert.equal(refresh.hit, undefined);
        await refresh.store({ ...completion, id: 'chatcmpl-2' });
        assert.equal(((await cache.lookup({ settings, scope, request, forceRefresh: false })).hit as { id?: string } | undefined)?.id, 'chatcmpl-2');
      });
    });
  });
}

describe('streams and the cache', () => {
  test('a cached completion replays as chunks that reassemble into it, ending with [DONE]', () => {
    const chunks = completionToChunks(completion, true);
    assert.equal(chunks.at(-1)!.usage?.total_tokens, 5);
    const assembler = new StreamAssembler();
    for (const chunk of chunks) assembler.push(chunk);
    assert.deepEqual(assembler.completion(), completion);
    const sse = chunksToSse(chunks);
    assert.ok(sse.startsWith('data: {'));
    assert.ok(sse.endsWith('data: [DONE]\n\n'));
    assert.equal(completionToChunks(completion, false).some((chunk) => chunk.usage), false);
  });

  test('a stream cut before its finish reason assembles to nothing (never cached)', () => {
    const assembler = new StreamAssembler();
    for (const chunk of completionToChunks(completion, false).slice(0, -1)) assembler.push(chunk);
    assert.equal(assembler.completion(), undefined);
    assert.equal(new StreamAssembler().completion(), undefined);
  });
});
