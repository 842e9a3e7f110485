import { USERS_TOPIC } from '../../core/auth/topics.js';
import { LRUCache } from 'lru-cache';
import type { InvalidationBus } from '../../core/invalidation.js';
import type { Principal } from '../../core/auth/principal.js';


interface Entry<Extra> {
  principal: Principal;
  extra: Extra;
}

/**
 * Resolved principals of one credential kind (JWTs, sessions, OAuth tokens), by the hash of the
 * credential, so a request with a known credential makes no database round trip. An entry goes
 * when its user changes (USERS_TOPIC) or when the credential is revoked (the kind's own topic).
 */
export class PrincipalCache<Extra = undefined> {
  private readonly cache: LRUCache<string, Entry<Extra>>;
  /** Bumped on every eviction: a lookup that raced with one is not cached. */
  private generation = 0;

  constructor(bus: InvalidationBus, revokedTopic: string | undefined, maxEntries = 20_000) {
    this.cache = new LRUCache({ max: maxEntries });
    bus.subscribe(USERS_TOPIC, (userId) => this.evictWhere((principal) => principal.userId === userId));
    if (revokedTopic) bus.subscribe(revokedTopic, (id) => this.evictWhere((principal) => principal.credentialId === id));
  }

  get(hash: string, now: number): Entry<Extra> | undefined {
    const entry = this.cache.get(hash);
    if (entry && entry.principal.validUntil !== null && entry.principal.validUntil <= now) {
      this.cache.delete(hash);
      return undefined;
    }
    return entry;
  }

  /** Resolves through `load` on a miss; caches what it found unless an eviction happened meanwhile. */
  async resolve(hash: string, now: number, load: () => Promise<Entry<Extra> | undefined>): Promise<Entry<Extra> | undefined> {
    const cached = this.get(hash, now);
    if (cached) return cached;
    const generation = this.generation;
    const entry = await load();
    if (entry && generation === this.generation) this.cache.set(hash, entry);
    return entry;
  }

  delete(hash: string): void {
    this.generation++;
    this.cache.delete(hash);
  }

  evictWhere(match: (principal: Principal) => boolean): void {
    this.generation++;
    for (const [hash, entry] of this.cache.entries()) if (match(entry.principal)) this.cache.delete(hash);
  }
}
