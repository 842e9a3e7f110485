import { LRUCache } from 'lru-cache';
import type { CacheBackend } from './cache-backend.js';

interface Entry {
  value: string;
  expiresAt: number;
}

/**
 * The in-process cache: bounded by the bytes of its keys and values, least recently used
 * entries evicted first. Expiry is checked against the injected clock so tests can move time.
 */
export class MemoryCacheBackend implements CacheBackend {
  private readonly entries: LRUCache<string, Entry>;

  constructor(
    maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (entry, key) => Math.max(1, Buffer.byteLength(entry.value) + key.length),
    });
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: string, maxAgeSeconds: number): Promise<void> {
    // An entry larger than the whole cache is refused by lru-cache; that is the intended bound.
    this.entries.set(key, { value, expiresAt: this.now() + maxAgeSeconds * 1000 });
  }

  /** Bytes held, for tests and metrics. */
  get size(): number {
    return this.entries.calculatedSize;
  }
}
