/**
 * Where limit counters live: in this process (one instance) or in Redis (shared by every
 * instance). `reserve` is the one check-and-increment: it adds `amount` only when the counter
 * stays within `limit`, in one atomic step, so concurrent requests can never overshoot it.
 */
export interface ReserveResult {
  allowed: boolean;
  /** The counter after the call (unchanged when refused). */
  used: number;
}

export interface CounterStore {
  /**
   * Adds `amount` to `key` when `used < limit` and `used + amount <= limit`; the key expires
   * `ttlMs` after it is first written. When `index` is given, `member` is recorded in that set
   * (same lifetime) so the entities of a policy can be listed.
   */
  reserve(key: string, amount: number, limit: number, ttlMs: number, index?: { key: string; member: string }): Promise<ReserveResult>;
  /** Corrects a reservation by `delta` (real usage minus reserved); ignored once the key expired. */
  settle(key: string, delta: number): Promise<void>;
  /** Current values (0 for missing keys). */
  read(keys: string[]): Promise<number[]>;
  /** Members recorded under an index key. */
  members(indexKey: string): Promise<string[]>;
  /** Drops a counter (a per-entity reset). */
  remove(key: string): Promise<void>;
}
