/** The counter stores (memory and Redis) and the engine's behaviour when Redis is unreachable. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import type { CounterStore } from '../../gateway/limits/counter-store.js';
import { LimitsEngine } from '../../gateway/limits/limits-engine.js';
import { MemoryCounterStore } from '../../gateway/limits/memory-counter-store.js';
import type { OrganisationPolicies } from '../../core/limit-policy-types.js';
import { RedisCounterStore } from '../../gateway/limits/redis-counter-store.js';
import { ApiError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { RedisClient } from '../../core/services.js';
import { counterEngines } from '../helpers/engines.js';

for (const engine of counterEngines()) {
  describe(`counter store (${engine.name})`, () => {
    let store: CounterStore;
    let client: RedisClient | undefined;
    let clock = 1_000_000;
    before(async () => {
      if (engine.redisUrl) {
        client = createClient({ url: engine.redisUrl });
        await client.connect();
        store = new RedisCounterStore(client, `gwtest:${randomBytes(4).toString('hex')}:`);
      } else {
        store = new MemoryCounterStore(() => clock);
      }
    });
    after(async () => {
      await client?.quit();
    });

    test('concurrent reservations never pass the limit: exactly the limit is admitted', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve('exact', 1, 10, 60_000)));
      assert.equal(results.filter((r) => r.allowed).length, 10);
      assert.deepEqual(await store.read(['exact']), [10]);
    });

    test('an amount that would cross the limit is refused even when some remains', async () => {
      assert.equal((await store.reserve('partial', 7, 10, 60_000)).allowed, true);
      const refused = await store.reserve('partial', 4, 10, 60_000);
      assert.deepEqual(refused, { allowed: false, used: 7 });
      assert.equal((await store.reserve('partial', 3, 10, 60_000)).allowed, true);
    });

    test('a zero reservation passes only while the counter is under the limit', async () => {
      assert.equal((await store.reserve('zero', 0, 5, 60_000)).allowed, true);
      await store.reserve('zero', 5, 5, 60_000);
      assert.equal((await store.reserve('zero', 0, 5, 60_000)).allowed, false);
    });

    test('settle corrects a reservation; a missing key stays missing', async () => {
      await store.reserve('settle', 100, 1000, 60_000);
      await store.settle('settle', -60);
      assert.deepEqual(await store.read(['settle']), [40]);
      await store.settle('never-reserved', 5);
      assert.deepEqual(await store.read(['never-reserved']), [0]);
    });

    test('index members are listed and a removed counter starts over', async () => {
      await store.reserve('entity-a', 2, 10, 60_000, { key: 'idx', member: 'a' });
      await store.reserve('entity-b', 3, 10, 60_000, { key: 'idx', member: 'b' });
      assert.deepEqual((await store.members('idx')).sort(), ['a', 'b']);
      await store.remove('entity-a');
      assert.deepEqual(await store.read(['entity-a', 'entity-b']), [0, 3]);
    });

    if (!engine.redisUrl) {
      test('memory counters expire on the injected clock', async () => {
        await store.reserve('ttl', 5, 5, 1000);
        clock += 999;
        assert.equal((await store.reserve('ttl', 1, 5, 1000)).allowed, false);
        clock += 1;
        assert.deepEqual(await store.reserve('ttl', 1, 5, 1000), { allowed: true, used: 1 });
      });
    }
  });
}

describe('Redis unreachable', () => {
  const policies: OrganisationPolicies = {
    usage: [],
    rate: [{ id: 'p1', type: 'requests', unit: 'minute', value: 1, target: 'llm', conditions: [], group_by: [] }],
  };
  const expected = { requests: 1, tokens: 0, cost: 0 };
  let client: RedisClient;
  let store: RedisCounterStore;
  const logged: string[] = [];
  const logger = { error: (_: unknown, message: string) => logged.push(message), warn: () => undefined } as unknown as Logger;

  before(async () => {
    // A loopback port nobody listens on: bind, note the port, close.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
    client.on('error', () => undefined);
    await client.connect().catch(() => undefined);
    store = new RedisCounterStore(client, 'gwtest:closed:');
  });

  test('fail open: the request passes and the failure is logged', async () => {
    logged.length = 0;
    const engine = new LimitsEngine(store, { failOpen: true, logger, now: () => 0 });
    assert.deepEqual(await engine.checkRateLimits(policies, {}, expected), []);
    assert.deepEqual(logged, ['limit counters unavailable']);
  });

  test('fail closed: 503 limits_unavailable in the error body, and logged', async () => {
    logged.length = 0;
    const engine = new LimitsEngine(store, { failOpen: false, logger, now: () => 0 });
    await assert.rejects(engine.checkRateLimits(policies, {}, expected), (error: unknown) => error instanceof ApiError && error.status === 503 && error.code === 'limits_unavailable');
    assert.deepEqual(logged, ['limit counters unavailable']);
  });

  test('a failed settle is logged, never thrown', async () => {
    logged.length = 0;
    const engine = new LimitsEngine(store, { failOpen: false, logger, now: () => 0 });
    await engine.settle([{ key: 'k', measure: 'tokens', reserved: 5 }], { requests: 1, tokens: 9, cost: 0 });
    assert.deepEqual(logged, ['limit settle failed']);
  });
});
