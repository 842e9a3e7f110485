import type { RedisClient } from '../../core/services.js';
import type { CacheBackend } from './cache-backend.js';

/** The shared cache: one Redis string per entry under `<prefix>cache:`, expiring with max_age. */
export class RedisCacheBackend implements CacheBackend {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(`${this.prefix}cache:${key}`)) ?? undefined;
  }

  async set(key: string, value: string, maxAgeSeconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}cache:${key}`, value, { expiration: { type: 'EX', value: Math.max(1, Math.ceil(maxAgeSeconds)) } });
  }
}
