import type { RedisClient } from '../../core/services.js';
import type { CounterStore, ReserveResult } from './counter-store.js';

/** Thrown when Redis cannot answer; the limits engine turns it into fail-open or fail-closed. */
export class CounterStoreUnavailable extends Error {}

// Check-and-increment in one script: no other command can run between the read and the write.
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if used >= limit or used + amount > limit then return {0, used} end
used = redis.call('INCRBY', KEYS[1], amount)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
if KEYS[2] then
  redis.call('SADD', KEYS[2], ARGV[4])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
end
return {1, used}
`;

// Only an existing counter is corrected: INCRBY on an expired key would recreate it without a TTL.
const SETTLE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return 0
`;

/** Counters shared by every gw instance on one Redis; keys carry the deployment's prefix. */
export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  async reserve(key: string, amount: number, limit: number, ttlMs: number, index?: { key: string; member: string }): Promise<ReserveResult> {
    const keys = [this.prefix + key, ...(index ? [this.prefix + index.key] : [])];
    const args = [String(amount), String(limit), String(Math.max(1, Math.ceil(ttlMs))), ...(index ? [index.member] : [])];
    const [allowed, used] = (await this.run(() => this.client.eval(RESERVE, { keys, arguments: args }))) as [number, number];
    return { allowed: allowed === 1, used: Number(used) };
  }

  async settle(key: string, delta: number): Promise<void> {
    if (delta === 0) return;
    await this.run(() => this.client.eval(SETTLE, { keys: [this.prefix + key], arguments: [String(delta)] }));
  }

  async read(keys: string[]): Promise<number[]> {
    if (!keys.length) return [];
    const values = await this.run(() => this.client.mGet(keys.map((key) => this.prefix + key)));
    return values.map((value) => Number(value ?? 0));
  }

  async members(indexKey: string): Promise<string[]> {
    return this.run(() => this.client.sMembers(this.prefix + indexKey));
  }

  async remove(key: string): Promise<void> {
    await this.run(() => this.client.del(this.prefix + key));
  }

  /** Refuses at once while disconnected: queued commands would hold requests until Redis returns. */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.client.isReady) throw new CounterStoreUnavailable('Redis is not connected');
    try {
      return await command();
    } catch (error) {
      throw new CounterStoreUnavailable(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }
}
