import { createLocalJWKSet, errors, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import type { GuardedFetch } from '../../../gateway/outbound/guarded-fetch.js';
import type { Logger } from '../../../core/logger.js';

export interface KeySetOptions {
  urls: readonly string[];
  /** Through the outbound guard: key-set URLs are vetted like any URL gw fetches. */
  fetch: GuardedFetch;
  now: () => number;
  cacheMs: number;
  /** Shortest time between two fetches caused by an unknown `kid`: a flood of forged kids makes no flood of fetches. */
  cooldownMs: number;
  logger: Logger;
}

const FETCH_TIMEOUT_MS = 5_000;

/**
 * The keys of several JWKS URLs as one set: fetched in parallel and merged, used for `cacheMs`,
 * and fetched again when a token names a `kid` none of them has (a rotation), at most once per
 * cooldown. A URL that fails keeps the keys it last gave, so one outage does not lock everyone out.
 */
export class MergedKeySets {
  private readonly lastGood = new Map<string, JWK[]>();
  private local: JWTVerifyGetKey | undefined;
  private fetchedAt = -Infinity;
  private inFlight: Promise<void> | undefined;

  constructor(private readonly options: KeySetOptions) {}

  /** jose's key resolver over the merged set. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const { now, cacheMs, cooldownMs } = this.options;
    if (!this.local || now() - this.fetchedAt >= cacheMs) await this.refresh();
    try {
      return await this.local!(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || now() - this.fetchedAt < cooldownMs) throw error;
      await this.refresh();
      return this.local!(header, token);
    }
  };

  private refresh(): Promise<void> {
    this.inFlight ??= this.fetchAll().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetchAll(): Promise<void> {
    const results = await Promise.allSettled(this.options.urls.map((url) => this.fetchOne(url)));
    results.forEach((result, index) => {
      const url = this.options.urls[index]!;
      if (result.status === 'fulfilled') this.lastGood.set(url, result.value);
      else this.options.logger.warn({ url, err: (result.reason as Error).message }, 'JWT key set fetch failed');
    });
    this.fetchedAt = this.options.now();
    const keys: JWK[] = [...this.lastGood.values()].flat();
    const set: JSONWebKeySet = { keys };
    this.local = createLocalJWKSet(set);
  }

  private async fetchOne(url: string): Promise<JWK[]> {
    const response = await this.options.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('not a JWK set: no keys array');
    // Only public keys with a usable shape; a symmetric or private key in a published set is ignored.
    return (body.keys as JWK[]).filter((key) => key && typeof key === 'object' && key.kty !== 'oct' && key.d === undefined);
  }
}
