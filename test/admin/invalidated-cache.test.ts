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

  test('an entry past its time to live is loaded again', async () => {
    const cache = new InvalidatedCache<{ v: number }>(10, 1);
    let loads = 0;
    const load = async () => ({ v: ++loads });
    assert.deepEqual(await cache.get('a', load), { v: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(await cache.get('a', load), { v: 2 }, 'expired: loaded again');
    assert.equal(loads, 2);
  });

  test('a full cache drops the entry read longest ago', async () => {
    const cache = new InvalidatedCache<{ key: string }>(2, 60_000);
    const loaded: string[] = [];
    const get = (key: string) => cache.get(key, async () => (loaded.push(key), { key }));
    await get('a');
    await get('b');
    await get('a'); // a hit: b is now the one read longest ago
    await get('c'); // over the bound: b goes
    assert.deepEqual(loaded, ['a', 'b', 'c']);
    await get('a');
    await get('c');
    assert.deepEqual(loaded, ['a', 'b', 'c'], 'a and c are still held');
    await get('b');
    assert.deepEqual(loaded, ['a', 'b', 'c', 'b'], 'b was dropped and is loaded again');
  });
});
