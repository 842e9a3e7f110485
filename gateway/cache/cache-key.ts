/**
 * Cache keys. A key covers the tenant (organisation, workspace), the provider that would serve
 * (name and custom host), the model, and the normalised request: keys sorted at every depth,
 * without the fields that do not change the answer (stream, stream_options, user, metadata,
 * store). The partition is the `x-gw-cache-namespace` when given, which then replaces the
 * request's metadata (x-gw-metadata) in the key; without it, the metadata is part of the key.
 */
import { sha256Hex } from '../../core/sha256.js';
import { stableStringify } from './stable-json.js';

const CACHE_IRRELEVANT_FIELDS = ['stream', 'stream_options', 'user', 'metadata', 'store'];

export interface CacheScope {
  organisationId: string;
  workspaceId: string;
  provider: string;
  customHost?: string;
  namespace?: string;
  metadata?: Record<string, unknown>;
  /** The operation when not chat (`embeddings`, `completions`): the same body on another endpoint is another answer. */
  operation?: string;
}

export function normaliseRequest(request: Record<string, unknown>): Record<string, unknown> {
  const normalised = { ...request };
  for (const field of CACHE_IRRELEVANT_FIELDS) delete normalised[field];
  return normalised;
}

function partition(scope: CacheScope): unknown {
  return scope.namespace !== undefined ? { namespace: scope.namespace } : { metadata: scope.metadata ?? {} };
}

const sha256 = sha256Hex;

/** The simple cache's key for one request at one target. */
export function simpleCacheKey(scope: CacheScope, request: Record<string, unknown>): string {
  return sha256(
    stableStringify({
      v: 1,
      tenant: [scope.organisationId, scope.workspaceId],
      provider: [scope.provider, scope.customHost ?? null],
      partition: partition(scope),
      ...(scope.operation ? { operation: scope.operation } : {}),
      request: normaliseRequest(request),
    }),
  );
}

/**
 * The semantic cache's scope: everything of the simple key except the last user turn, which is
 * compared by meaning instead, plus the embedding model (vectors of different models do not compare).
 */
export function semanticScopeKey(scope: CacheScope, requestWithoutLastUserTurn: Record<string, unknown>, embeddingModel: string): string {
  return sha256(
    stableStringify({
      v: 1,
      tenant: [scope.organisationId, scope.workspaceId],
      provider: [scope.provider, scope.customHost ?? null],
      partition: partition(scope),
      ...(scope.operation ? { operation: scope.operation } : {}),
      request: normaliseRequest(requestWithoutLastUserTurn),
      embedding: embeddingModel,
    }),
  );
}
