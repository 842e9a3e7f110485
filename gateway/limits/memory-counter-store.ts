import type { CounterStore, ReserveResult } from './counter-store.js';

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Counters for one process. JavaScript runs each call to completion, so check-and-increment is
 * atomic here without locks. Expiry follows the injected clock, like everything else that reads time.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, Entry<number>>();
  private readonly indexes = new Map<string, Entry<Set<string>>>();
  private writes = 0;

  constructor(private readonly now: () => number) {}

  async reserve(key: string, amount: number, limit: number, ttlMs: number, index?: { key: string; member: string }): Promise<ReserveResult> {
    const entry = this.live(this.counters, key);
    const used = entry?.value ?? 0;
    if (used >= limit || used + amount > limit) return { allowed: false, used };
    if (++this.writes % 1000 === 0) this.sweep();
    const expiresAt = entry?.expiresAt ?? this.now() + ttlMs;
    this.counters.set(key, { value: used + amount, expiresAt });
    if (index) {
      const set = this.live(this.indexes, index.key) ?? { value: new Set<string>(), expiresAt };
      set.value.add(index.member);
      set.expiresAt = Math.max(set.expiresAt, expiresAt);
      this.indexes.set(index.key, set);
    }
    return { allowed: true, used: used + amount };
  }

  async settle(key: string, delta: number): Promise<void> {
    const entry = this.live(this.counters, key);
    if (entry) entry.value += delta;
  }

  async read(keys: string[]): Promise<number[]> {
    return keys.map((key) => this.live(this.counters, key)?.value ?? 0);
  }

  async members(indexKey: string): Promise<string[]> {
    return [...(this.live(this.indexes, indexKey)?.value ?? [])];
  }

  async remove(key: string): Promise<void> {
    this.counters.delete(key);
  }

  /** Old windows are never read again; drop them now and then so memory stays bounded. */
  private sweep(): void {
    for (const key of this.counters.keys()) this.live(this.counters, key);
    for (const key of this.indexes.keys()) this.live(this.indexes, key);
  }

  private live<T>(map: Map<string, Entry<T>>, key: string): Entry<T> | undefined {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }
}
