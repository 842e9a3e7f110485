import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createClient, type RedisClientType as RedisClient } from 'redis';
import { EXACT_SEARCH_LIMIT, ScopeIndex } from '../../gateway/cache/semantic/scope-index.js';
import { SemanticStore } from '../../gateway/cache/semantic/semantic-store.js';
import { createDb, type DbOptions } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { Store } from '../../store/store.js';
import { createLogger } from '../../core/logger.js';
import { LocalInvalidationBus, RedisInvalidationBus, type InvalidationBus } from '../../core/invalidation.js';
import { fullEngines } from '../helpers/engines.js';
import { privateDb } from '../helpers/test-db.js';
import { seededRandom } from '../helpers/seeded-random.js';

const logger = createLogger('silent');

function randomVector(random: () => number, dimensions = 16): number[] {
  return Array.from({ length: dimensions }, () => random() * 2 - 1);
}

describe('scope index', () => {
  test('exact search finds the nearest live vector; expired entries are skipped', () => {
    const index = new ScopeIndex();
    index.add('a', [1, 0, 0], 100);
    index.add('b', [0, 1, 0], 100);
    index.add('c', [0.9, 0.1, 0], 10);
    assert.equal(index.nearest([1, 0.11, 0], 0)?.id, 'c');
    assert.equal(index.nearest([1, 0.11, 0], 50)?.id, 'a', 'c expired at 10');
    assert.ok(index.nearest([1, 0, 0], 50)!.similarity > 0.999);
    assert.equal(index.nearest([1, 0], 0), undefined, 'another dimension never matches');
  });

  test(`past ${EXACT_SEARCH_LIMIT} entries it moves to the HNSW graph and finds the same neighbours`, () => {
    const random = seededRandom(7);
    const index = new ScopeIndex();
    const vectors = Array.from({ length: EXACT_SEARCH_LIMIT + 200 }, () => randomVector(random));
    vectors.forEach((vector, i) => index.add(`v${i}`, vector, i === 5 ? 1 : Number.MAX_SAFE_INTEGER));
    assert.ok(index.usesGraph);
    for (const i of [0, 17, 900, EXACT_SEARCH_LIMIT + 150]) {
      const probe = vectors[i]!.map((value) => value + 0.001);
      assert.equal(index.nearest(probe, 10)?.id, `v${i}`);
    }
    assert.notEqual(index.nearest(vectors[5]!, 10)?.id, 'v5', 'an expired entry is not served from the graph');
  });
});

for (const engine of fullEngines()) {
  describe(`semantic store (${engine.name})`, () => {
    async function twoInstances(work: (a: SemanticStore, b: SemanticStore, restart: () => SemanticStore) => Promise<void>) {
      const dir = mkdtempSync(path.join(tmpdir(), 'gw-semantic-'));
      const pgDb = engine.databaseUrl ? await privateDb(engine.databaseUrl) : undefined;
      const options: DbOptions = pgDb?.options ?? { sqliteFile: path.join(dir, 'gw.sqlite') };
      const dbs = [createDb(options), createDb(options)];
      await migrateToLatest(dbs[0]!);
      const redisClients: RedisClient[] = [];
      const buses: InvalidationBus[] = [];
      const prefix = `gwtest:${Math.random().toString(16).slice(2)}:`;
      const bus = async (): Promise<InvalidationBus> => {
        if (!engine.redisUrl) return new LocalInvalidationBus();
        const client = createClient({ url: engine.redisUrl });
        await client.connect();
        redisClients.push(client);
        return RedisInvalidationBus.connect(client, prefix, logger);
      };
      buses.push(await bus(), await bus());
      const a = new SemanticStore(new Store(dbs[0]!), buses[0]!, Date.now, logger);
      const b = new SemanticStore(new Store(dbs[1]!), buses[1]!, Date.now, logger);
      try {
        await work(a, b, () => new SemanticStore(new Store(dbs[1]!), new LocalInvalidationBus(), Date.now, logger));
      } finally {
        await a.idle();
        await b.idle();
        for (const item of buses) await item.close();
        for (const client of redisClients) await client.quit();
        for (const db of dbs) await db.destroy();
        await pgDb?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    }

    test('entries persist in the store: a restarted instance finds them, thresholds apply', async () => {
      await twoInstances(async (a, _b, restart) => {
        assert.equal(await a.find('scope-1', [1, 0, 0], 0.9), undefined);
        a.save('scope-1', 'org-1', [1, 0, 0], '{"answer":1}', 60);
        await a.idle();
        assert.equal((await a.find('scope-1', [0.99, 0.05, 0], 0.95))?.response, '{"answer":1}');
        const fresh = restart();
        assert.equal((await fresh.find('scope-1', [0.99, 0.05, 0], 0.95))?.response, '{"answer":1}');
        assert.equal(await fresh.find('scope-1', [0.5, 0.5, 0], 0.95), undefined, 'below the threshold');
        assert.equal(await fresh.find('scope-2', [1, 0, 0], 0.5), undefined, 'another scope');
      });
    });

    // The timeout turns a lost pub/sub message into a failure rather than a hang.
    test('an instance that already loaded the scope hears about new entries', { timeout: 30_000 }, async () => {
      await twoInstances(async (a, b) => {
        assert.equal(await b.find('scope-1', [1, 0, 0], 0.9), undefined, 'b loads the (empty) scope');
        a.save('scope-1', 'org-1', [1, 0, 0], '{"answer":2}', 60);
        await a.idle();
        if (engine.redisUrl) {
          // Pub/sub delivery is asynchronous: wait for b to hear it (bounded by the test's timeout).
          while (!(await b.find('scope-1', [1, 0, 0], 0.9))) await new Promise((resolve) => setTimeout(resolve, 10));
          assert.equal((await b.find('scope-1', [1, 0, 0], 0.9))?.response, '{"answer":2}');
        } else {
          // Without Redis, instances do not hear each other: b keeps the scope it loaded.
          assert.equal(await b.find('scope-1', [1, 0, 0], 0.9), undefined);
        }
      });
    });
  });
}
