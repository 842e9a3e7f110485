interface Entry<V> {
  value: V;
  /** Date.now() past which the entry is gone. */
  expiresAt: number;
}

/**
 * A bounded map whose entries expire `ttlMs` after they were set; when full, the entry read longest
 * ago goes. A plain Map rather than lru-cache for maps read on every gateway request: lru-cache's
 * TTL check arms a timer to refresh its clock whenever one has fired (a new timer per cache per
 * millisecond on a busy server).
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Read entries move to the end, so the first is the one read longest ago; only once the map is
    // half full, since until then nothing is dropped.
    if (this.entries.size > this.max / 2) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    // A Map iterates in insertion order: its first key is the entry set or read longest ago.
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
