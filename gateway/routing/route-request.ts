/**
 * The route stage: runs a config's strategy tree for one chat request. For each leaf it applies
 * the inherited override_params, consults the response cache with the leaf's cache settings
 * (the key needs the leaf's provider and model, so the cache sits inside the leaf), and on a
 * miss calls the target through `callTarget` with retries (retry.ts) and a timeout of
 * min(the leaf's request_timeout or the default, what remains of the whole-request budget).
 *
 * Timeouts: `request_timeout` in a config is per target (inherited like the other settings);
 * the whole request's budget is `x-gw-request-timeout`. Both cover the wait for response headers.
 *
 * The caller gets what served (a cached completion, or the upstream answer plus a `store`
 * to call once the answer is known complete) and a report for response headers and the log.
 */
import type { GatewayAnswer } from '../providers/types.js';
import type { CacheScope } from '../cache/cache-key.js';
import type { CacheStatus, CacheTicket, ResponseCache } from '../cache/response-cache.js';
import type { ConfigNode, EmbeddingSettings } from './config-node.js';
import { Deadline } from './deadline.js';
import { failureFromError, type Outcome } from './outcome.js';
import { withRetry } from './retry.js';
import { runStrategyTree, type Leaf, type RouteStep } from './strategy-tree.js';

export type Served<A> =
  | { kind: 'cache'; completion: GatewayAnswer; /** The provider whose answer was cached, when the entry says. */ provider?: string }
  | { kind: 'upstream'; answer: A; /** Stores the complete answer in the cache (no-op when caching is off). */ store: CacheTicket['store'] };

export interface RouteInput<A> {
  config: ConfigNode;
  /** The OpenAI-shaped request as the client sent it. */
  request: Record<string, unknown>;
  metadata: Record<string, string>;
  tenant: { organisationId: string; workspaceId: string };
  cacheNamespace?: string;
  /** The operation when not chat, kept apart in the cache (cache-key.ts). */
  operation?: string;
  forceRefresh: boolean;
  /** Whole-request budget (x-gw-request-timeout), ms. */
  requestTimeoutMs?: number;
  /** Per-target timeout when the config names none (REQUEST_TIMEOUT). */
  defaultTimeoutMs: number;
  /** Throws when the caller may not use a leaf at all (a model off the key's list): that leaf fails before its cache or provider. */
  admitLeaf?(leaf: Leaf, request: Record<string, unknown>): void;
  /** One attempt at a leaf: resolve its provider, translate, call upstream with the timeout. */
  callTarget(leaf: Leaf, request: Record<string, unknown>, timeoutMs: number): Promise<Outcome<A>>;
  /** Builds the embedding call for a semantic cache's `embedding` settings. */
  embedderFor?(settings: EmbeddingSettings, timeoutMs: number): (text: string) => Promise<number[]>;
  cache: ResponseCache;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

export interface RouteReport {
  /** The served (or last failed) leaf's path: x-gw-last-used-option-index. */
  path: string;
  /** Retries made at that leaf: x-gw-retry-attempt-count. */
  retries: number;
  cacheStatus: CacheStatus;
  steps: RouteStep[];
  /** The leaf's effective settings (provider, guardrails, ...). */
  leaf: Leaf;
  /** The request as sent to the serving leaf (after override_params). */
  request: Record<string, unknown>;
}

export interface RouteResult<A> {
  outcome: Outcome<Served<A>>;
  report: RouteReport;
}

export function applyOverrides(request: Record<string, unknown>, overrides: Record<string, unknown> | undefined): Record<string, unknown> {
  return overrides ? { ...request, ...overrides } : request;
}

function cacheScope<A>(input: RouteInput<A>, leaf: Leaf): CacheScope {
  const settings = leaf.settings;
  const provider = settings.provider ?? (settings.virtual_key ? `@${settings.virtual_key}` : '');
  return {
    organisationId: input.tenant.organisationId,
    workspaceId: input.tenant.workspaceId,
    provider,
    customHost: settings.custom_host,
    namespace: input.cacheNamespace,
    metadata: input.metadata,
    operation: input.operation,
  };
}

export async function routeRequest<A>(input: RouteInput<A>): Promise<RouteResult<A>> {
  const deadline = new Deadline(input.requestTimeoutMs, input.now);
  const perLeaf = new Map<string, { retries: number; cacheStatus: CacheStatus; request: Record<string, unknown> }>();

  const runLeaf = async (leaf: Leaf): Promise<Outcome<Served<A>>> => {
    const request = applyOverrides(input.request, leaf.settings.override_params);
    const state = { retries: 0, cacheStatus: 'DISABLED' as CacheStatus, request };
    perLeaf.set(leaf.path, state);
    try {
      input.admitLeaf?.(leaf, request);
    } catch (error) {
      return failureFromError(error);
    }
    const embedding = leaf.settings.cache?.embedding;
    const ticket = await input.cache.lookup({
      settings: leaf.settings.cache,
      scope: cacheScope(input, leaf),
      request,
      forceRefresh: input.forceRefresh,
      embed: embedding && input.embedderFor ? input.embedderFor(embedding, deadline.leafTimeout(undefined, input.defaultTimeoutMs)) : undefined,
    });
    state.cacheStatus = ticket.status;
    if (ticket.hit) return { ok: true, status: 200, value: { kind: 'cache', completion: ticket.hit, provider: ticket.hitProvider } };
    const { outcome, retries } = await withRetry(
      leaf.settings.retry,
      () => input.callTarget(leaf, request, deadline.leafTimeout(leaf.settings.request_timeout, input.defaultTimeoutMs)),
      { sleep: input.sleep, random: input.random, now: input.now, deadline },
    );
    state.retries = retries;
    if (!outcome.ok) return outcome;
    return { ok: true, status: outcome.status, value: { kind: 'upstream', answer: outcome.value, store: ticket.store } };
  };

  const result = await runStrategyTree(input.config, {
    subject: { metadata: input.metadata, params: input.request },
    random: input.random,
    runLeaf,
    deadline,
  });
  const state = perLeaf.get(result.leaf.path)!;
  return {
    outcome: result.outcome,
    report: { path: result.leaf.path, retries: state.retries, cacheStatus: state.cacheStatus, steps: result.steps, leaf: result.leaf, request: state.request },
  };
}
