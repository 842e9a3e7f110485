import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidatedCache } from '../../gateway/invalidated-cache.js';

describe('the gateway-side cache of saved resources', () => {
  test('hits and misses are cached until cleared; concurrent misses share one load', async () => {
    const cache = new InvalidatedCache<{ v: number }>(10, 60_000);
    let loads = 0;
    const load = async () => (++loads === 1 ? undefined : { v: loads });
    assert.equal(await cache.get('a', load), undefined);
    assert.equal(await cache.get('a', load), undefined, 'a miss is remembered');
    assert.equal(loads, 1);
    cache.clear();
    const [x, y] = await Promise.all([cache.get('a', load), cache.get('a', load)]);
    assert.deepEqual([x, y], [{ v: 2 }, { v: 2 }]);
    assert.equal(loads, 2);
  });

  test('a load that raced with a clear is answered but not cached', async () => {
    const cache = new InvalidatedCache<{ v: string }>(10, 60_000);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stale = cache.get('k', async () => {
      await gate;
      return { v: 'stale' };
    });
    cache.clear();
    release();
    assert.deepEqual(await stale, { v: 'stale' });
    assert.deepEqual(await cache.get('k', async () => ({ v: 'fresh' })), { v: 'fresh' });
  });
});
