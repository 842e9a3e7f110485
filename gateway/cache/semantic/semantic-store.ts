/**
 * Semantic-cache entries across restarts and instances. Entries are written to the store
 * (semantic_cache_entries) and searched in memory: a scope is loaded from the store on its first
 * lookup in this process, then kept in step by the bus (topic SEMANTIC_CACHE_TOPIC, carried over
 * Redis pub/sub when Redis is configured): an instance that saves an entry announces it, and
 * instances holding that scope read the one row and add it. Loaded scopes are bounded (LRU).
 */
import { LRUCache } from 'lru-cache';
import type { InvalidationBus } from '../../../core/invalidation.js';
import type { Logger } from '../../../core/logger.js';
import type { Store } from '../../../store/store.js';
import { ScopeIndex } from './scope-index.js';

export const SEMANTIC_CACHE_TOPIC = 'semantic-cache';
const MAX_LOADED_SCOPES = 1_000;

interface LoadedScope {
  index: ScopeIndex;
  responses: Map<string, string>;
}

export interface SemanticMatch {
  response: string;
  similarity: number;
}

export class SemanticStore {
  private readonly scopes = new LRUCache<string, Promise<LoadedScope>>({ max: MAX_LOADED_SCOPES });
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly bus: InvalidationBus,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {
    bus.subscribe(SEMANTIC_CACHE_TOPIC, (message) => this.heard(message));
  }

  /** The best live entry of the scope at or above the threshold. */
  async find(scope: string, vector: number[], threshold: number): Promise<SemanticMatch | undefined> {
    const loaded = await this.load(scope);
    const neighbour = loaded.index.nearest(vector, this.now());
    if (!neighbour || neighbour.similarity < threshold) return undefined;
    const response = loaded.responses.get(neighbour.id);
    return response === undefined ? undefined : { response, similarity: neighbour.similarity };
  }

  /** Persists and announces an entry; runs in the background (see idle()). */
  save(scope: string, organisationId: string, vector: number[], response: string, maxAgeSeconds: number): void {
    const write = this.write(scope, organisationId, vector, response, maxAgeSeconds)
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'semantic cache write failed'))
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Resolves when every background write has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  private async write(scope: string, organisationId: string, vector: number[], response: string, maxAgeSeconds: number): Promise<void> {
    const now = this.now();
    const entry = await this.store.semanticCacheEntries.create(
      { scope, organisation_id: organisationId, vector, response, expires_at: new Date(now + maxAgeSeconds * 1000).toISOString() },
      new Date(now).toISOString(),
    );
    const loaded = this.scopes.get(scope);
    if (loaded) this.add(await loaded, entry.id, entry.vector, entry.response, Date.parse(entry.expires_at));
    await this.bus.publish(SEMANTIC_CACHE_TOPIC, `${scope}:${entry.id}`);
  }

  private load(scope: string): Promise<LoadedScope> {
    let loaded = this.scopes.get(scope);
    if (!loaded) {
      loaded = this.read(scope);
      this.scopes.set(scope, loaded);
      // A failed read must not stay cached; the next lookup tries again.
      loaded.catch(() => this.scopes.delete(scope));
    }
    return loaded;
  }

  private async read(scope: string): Promise<LoadedScope> {
    const loaded: LoadedScope = { index: new ScopeIndex(), responses: new Map() };
    // Expired rows are purged (all scopes, indexed on expires_at) whenever a scope is loaded; searches skip them anyway.
    void this.store.semanticCacheEntries
      .deleteExpired(new Date(this.now()).toISOString())
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'semantic cache purge failed'));
    for (const entry of await this.store.semanticCacheEntries.liveInScope(scope, new Date(this.now()).toISOString())) {
      this.add(loaded, entry.id, entry.vector, entry.response, Date.parse(entry.expires_at));
    }
    return loaded;
  }

  private add(loaded: LoadedScope, id: string, vector: number[], response: string, expiresAt: number): void {
    if (loaded.index.has(id)) return;
    loaded.index.add(id, vector, expiresAt);
    if (loaded.index.has(id)) loaded.responses.set(id, response);
  }

  /** Another instance (or this one) saved an entry: add it when its scope is loaded here. */
  private heard(message: string): void {
    const separator = message.lastIndexOf(':');
    const scope = message.slice(0, separator);
    const id = message.slice(separator + 1);
    const loaded = this.scopes.get(scope);
    if (!loaded) return;
    void loaded
      .then(async (scopeEntries) => {
        if (scopeEntries.index.has(id)) return;
        const entry = await this.store.semanticCacheEntries.get(id);
        if (entry) this.add(scopeEntries, entry.id, entry.vector, entry.response, Date.parse(entry.expires_at));
      })
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'semantic cache sync failed'));
  }
}
