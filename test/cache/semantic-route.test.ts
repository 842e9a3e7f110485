/**
 * The semantic cache inside the route stage: the last user turn is embedded through a fake
 * OpenAI-shaped embeddings upstream, and a near-identical question is answered from the cache.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MemoryCacheBackend } from '../../gateway/cache/memory-cache-backend.js';
import { ResponseCache } from '../../gateway/cache/response-cache.js';
import { embedText, type JsonPost } from '../../gateway/cache/semantic/embedder.js';
import { SemanticStore } from '../../gateway/cache/semantic/semantic-store.js';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { routeRequest } from '../../gateway/routing/route-request.js';
import type { ChatCompletion } from '../../gateway/providers/types.js';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { Store } from '../../store/store.js';
import { createLogger } from '../../core/logger.js';
import { LocalInvalidationBus } from '../../core/invalidation.js';
import { storeEngines } from '../helpers/engines.js';
import { startFaultUpstream } from '../helpers/fault-upstream.js';
import { privateDb } from '../helpers/test-db.js';

const post: JsonPost = async (url, headers, body, timeoutMs) => {
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, body: await response.json() };
};

/** Texts about the weather embed close together, everything else far away. */
const vectorOf = (text: string): number[] => (/weather/i.test(text) ? [1, 0.02 * text.length, 0] : [0, 0, 1]);

for (const engine of storeEngines()) {
  describe(`semantic cache in the route stage (${engine.name})`, async () => {
    const embeddings = await startFaultUpstream((_index, received) => ({ kind: 'embedding', vector: vectorOf(String(received.body.input)) }));
    const chat = await startFaultUpstream((index) => ({ kind: 'ok', content: `answer ${index}` }));
    const { options, drop } = await privateDb(engine.databaseUrl);
    const db = createDb(options);
    await migrateToLatest(db);
    const semantic = new SemanticStore(new Store(db), new LocalInvalidationBus(), Date.now, createLogger('silent'));
    const cache = new ResponseCache(new MemoryCacheBackend(1 << 20), semantic, createLogger('silent'));
    after(async () => {
      await semantic.idle();
      await db.destroy();
      await drop();
      await embeddings.close();
      await chat.close();
    });

    const config: ConfigNode = {
      provider: 'openai',
      api_key: 'sk-chat',
      custom_host: chat.url,
      cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'text-embedding-3-small', api_key: 'sk-embed', custom_host: embeddings.url }, similarity_threshold: 0.9 },
    };

    async function ask(question: string, system = 'Be brief.') {
      const result = await routeRequest<Record<string, unknown>>({
        config,
        request: { model: 'gpt-4o-mini', messages: [{ role: 'system', content: system }, { role: 'user', content: question }] },
        metadata: {},
        tenant: { organisationId: 'org', workspaceId: 'ws' },
        forceRefresh: false,
        defaultTimeoutMs: 5_000,
        callTarget: async (leaf, request, timeoutMs) => {
          const { status, body } = await post(`${leaf.settings.custom_host}/chat/completions`, { 'content-type': 'application/json' }, JSON.stringify(request), timeoutMs);
          return { ok: true, status, value: body as Record<string, unknown> };
        },
        embedderFor: (settings, timeoutMs) => (text) =>
          embedText(post, { baseUrl: settings.custom_host!, model: settings.model, headers: { authorization: `Bearer ${settings.api_key}` } }, text, timeoutMs),
        cache,
        random: Math.random,
        sleep: async () => undefined,
        now: Date.now,
      });
      if (result.outcome.ok && result.outcome.value.kind === 'upstream') {
        await result.outcome.value.store(result.outcome.value.answer as never);
        await semantic.idle();
      }
      const served = result.outcome.ok ? result.outcome.value : undefined;
      const content = served?.kind === 'cache' ? (served.completion as ChatCompletion).choices[0]!.message.content : (served?.answer as { choices: Array<{ message: { content: string } }> } | undefined)?.choices[0]!.message.content;
      return { status: result.report.cacheStatus, content };
    }

    test('a similar last user turn is a SEMANTIC HIT; other prompts or scopes miss', async () => {
      const first = await ask('What is the weather in Paris?');
      assert.equal(first.status, 'MISS');
      assert.equal(embeddings.received[0]!.body.model, 'text-embedding-3-small');
      assert.equal(embeddings.received[0]!.headers.authorization, 'Bearer sk-embed');
      assert.equal(embeddings.received[0]!.body.input, 'What is the weather in Paris?');
      const exact = await ask('What is the weather in Paris?');
      assert.equal(exact.status, 'HIT');
      const similar = await ask('What is the weather in Paris ?');
      assert.equal(similar.status, 'SEMANTIC HIT');
      assert.equal(similar.content, first.content);
      assert.equal((await ask('Tell me a joke')).status, 'MISS', 'far from every stored turn');
      assert.equal((await ask('What is the weather in Paris ?', 'Answer in French.')).status, 'MISS', 'another system prompt is another scope');
      assert.equal(chat.received.length, 3);
    });
  });
}
