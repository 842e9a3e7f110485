import { ExpiringMap } from '../core/expiring-map.js';

/** Misses are cached too (a saved resource that does not exist), as this marker. */
const ABSENT = Symbol('absent');

/**
 * A read-through memory cache emptied whenever `clear` is called (an invalidation topic fired).
 * Concurrent misses for one key share one load; a load that raced with a clear is answered but
 * not cached, so a stale row can never outlive the invalidation that should have removed it.
 * Entries expire after `ttlMs`; when full, the entry read longest ago goes (core/expiring-map.ts).
 */
export class InvalidatedCache<T extends object> {
  private readonly entries: ExpiringMap<T | typeof ABSENT>;
  private readonly pending = new Map<string, Promise<T | undefined>>();
  private generation = 0;

  constructor(max: number, ttlMs: number) {
    this.entries = new ExpiringMap(max, ttlMs);
  }

  get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return Promise.resolve(hit === ABSENT ? undefined : hit);
    let loading = this.pending.get(key);
    if (!loading) {
      loading = this.load(key, load).finally(() => this.pending.delete(key));
      this.pending.set(key, loading);
    }
    return loading;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.pending.clear();
  }

  private async load(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) this.entries.set(key, value ?? ABSENT);
    return value;
  }
}
