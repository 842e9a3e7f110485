/**
 * The cache around one target's call. Lookup order: the simple cache (exact key) answers HIT;
 * in semantic mode the semantic cache answers SEMANTIC HIT; otherwise MISS, and a successful
 * answer is stored in both. `x-gw-cache-force-refresh` skips the lookup and stores (REFRESH).
 * Without cache settings the status is DISABLED. Only complete successful answers are stored
 * (the caller stores after a 2xx, or after a stream that ended cleanly); errors never are.
 * A failing backend or embedding call never fails the request: it is logged and counted a miss.
 */
import type { Logger } from '../../core/logger.js';
import { JsonText } from '../../core/json-text.js';
import type { GatewayAnswer } from '../providers/types.js';
import { readWireEmbeddingList } from '../providers/wire-embedding-list.js';
import type { CacheSettings } from '../routing/config-node.js';
import type { CacheBackend } from './cache-backend.js';
import { decodeCacheEntry, encodeCacheEntry } from './cache-entry.js';
import { semanticScopeKey, simpleCacheKey, type CacheScope } from './cache-key.js';
import { splitLastUserTurn } from './last-user-turn.js';
import type { SemanticStore } from './semantic/semantic-store.js';

export type CacheStatus = 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'REFRESH' | 'DISABLED';

/** Seven days, when a config's cache names no max_age. */
export const DEFAULT_MAX_AGE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_SIMILARITY_THRESHOLD = 0.95;

export interface CacheLookup {
  settings: CacheSettings | undefined;
  scope: CacheScope;
  /** The request as it would go upstream (after override_params, with the upstream model). */
  request: Record<string, unknown>;
  forceRefresh: boolean;
  /** Embeds text with the settings' embedding provider; required for semantic mode. */
  embed?: (text: string) => Promise<number[]>;
}

export interface CacheTicket {
  status: CacheStatus;
  /** The cached answer on HIT / SEMANTIC HIT. */
  hit?: GatewayAnswer;
  /** On a hit, the provider whose answer it is (unknown for entries stored before gw kept it). */
  hitProvider?: string;
  /** Stores a complete, successful answer with the provider that gave it; a no-op unless the status is MISS or REFRESH. */
  store(completion: GatewayAnswer, provider?: string | null): Promise<void>;
}

const noStore = async (): Promise<void> => undefined;

/** A stored answer; an embeddings list stays the text it was stored as, answered byte for byte. */
function cachedAnswer(text: string, scope: CacheScope): GatewayAnswer {
  if (scope.operation === 'embeddings') return readWireEmbeddingList(text) ?? (JSON.parse(text) as GatewayAnswer);
  return JSON.parse(text) as GatewayAnswer;
}

function hitOf(status: 'HIT' | 'SEMANTIC HIT', stored: string, scope: CacheScope): CacheTicket {
  const entry = decodeCacheEntry(stored);
  return { status, hit: cachedAnswer(entry.text, scope), hitProvider: entry.provider, store: noStore };
}

export class ResponseCache {
  constructor(
    private readonly backend: CacheBackend,
    private readonly semantic: SemanticStore | undefined,
    private readonly logger: Logger,
  ) {}

  async lookup(input: CacheLookup): Promise<CacheTicket> {
    const settings = input.settings;
    if (!settings) return { status: 'DISABLED', store: noStore };
    const key = simpleCacheKey(input.scope, input.request);
    const maxAge = settings.max_age ?? DEFAULT_MAX_AGE_SECONDS;
    const semantic = settings.mode === 'semantic' ? await this.prepareSemantic(input) : undefined;

    if (!input.forceRefresh) {
      const cached = await this.backend.get(key).catch((error: Error) => this.warn('cache read failed', error));
      if (cached !== undefined) return hitOf('HIT', cached, input.scope);
      if (semantic && this.semantic) {
        const threshold = settings.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
        const match = await this.semantic.find(semantic.scope, semantic.vector, threshold).catch((error: Error) => this.warn('semantic cache read failed', error));
        if (match) return hitOf('SEMANTIC HIT', match.response, input.scope);
      }
    }

    return {
      status: input.forceRefresh ? 'REFRESH' : 'MISS',
      store: async (completion, provider) => {
        const text = encodeCacheEntry(provider ?? undefined, completion instanceof JsonText ? completion.text : JSON.stringify(completion));
        // Registered before the first await, so SemanticStore.idle() covers it as soon as store() is called.
        if (semantic) this.semantic?.save(semantic.scope, input.scope.organisationId, semantic.vector, text, maxAge);
        await this.backend.set(key, text, maxAge).catch((error: Error) => this.warn('cache write failed', error));
      },
    };
  }

  private async prepareSemantic(input: CacheLookup): Promise<{ scope: string; vector: number[] } | undefined> {
    const embedding = input.settings?.embedding;
    const split = splitLastUserTurn(input.request);
    if (!this.semantic || !embedding || !input.embed || !split) return undefined;
    const vector = await input.embed(split.text).catch((error: Error) => this.warn('embedding failed', error));
    if (!vector) return undefined;
    return { scope: semanticScopeKey(input.scope, split.rest, `${embedding.provider ?? ''}/${embedding.model}`), vector };
  }

  private warn(message: string, error: Error): undefined {
    this.logger.warn({ err: error.message }, message);
    return undefined;
  }
}
