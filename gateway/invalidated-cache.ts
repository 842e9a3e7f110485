/** Misses are cached too (a saved resource that does not exist), as this marker. */
const ABSENT = Symbol('absent');

interface Entry<V> {
  value: V;
  /** Date.now() past which the entry is reloaded. */
  expiresAt: number;
}

/**
 * A read-through memory cache emptied whenever `clear` is called (an invalidation topic fired).
 * Concurrent misses for one key share one load; a load that raced with a clear is answered but
 * not cached, so a stale row can never outlive the invalidation that should have removed it.
 *
 * A plain Map with an expiry per entry, not lru-cache: several of these are read on every gateway
 * request, and lru-cache's TTL check arms a timer to refresh its clock whenever one has fired
 * (a new timer per cache per millisecond on a busy server). When full, the entry read longest ago goes.
 */
export class InvalidatedCache<T extends object> {
  private readonly entries = new Map<string, Entry<T | typeof ABSENT>>();
  private readonly pending = new Map<string, Promise<T | undefined>>();
  private generation = 0;

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      if (hit.expiresAt > Date.now()) {
        // Read entries move to the end, so the first is the one read longest ago; only once the
        // cache is half full, since until then nothing is dropped.
        if (this.entries.size > this.max / 2) {
          this.entries.delete(key);
          this.entries.set(key, hit);
        }
        return Promise.resolve(hit.value === ABSENT ? undefined : hit.value);
      }
      this.entries.delete(key);
    }
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
    if (generation === this.generation) this.set(key, value ?? ABSENT);
    return value;
  }

  private set(key: string, value: T | typeof ABSENT): void {
    this.entries.delete(key);
    // A Map iterates in insertion order: its first key is the entry set or read longest ago.
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }
}
