/**
 * The request log entry for one chat call, whatever its outcome. Its headers are the request's as
 * received: the log writer masks credentials and sensitive values (gateway/logs/prepare-entry.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { costNanoUsd, NANO_USD_PER_USD, priceOf } from '../limits/pricing/cost.js';
import type { Usage } from '../providers/types.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { ChatState } from './chat-state.js';
import { servingProvider } from './respond.js';
import { remoteParentOf } from '../telemetry/trace-context.js';
import { loggedEmbeddingList } from '../providers/wire-embedding-list.js';
import { isChatCompletion } from './upstream-answer.js';

/**
 * Request headers as the log keeps them: one string each. Node's are that already unless a header
 * came as a list (set-cookie): only then are they copied. The entry shares the object, which the
 * log writer reads and never changes (it masks into a new one, gateway/logs/prepare-entry.ts).
 */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  for (const name in headers) {
    if (typeof headers[name] !== 'string') return flatCopy(headers);
  }
  return headers as Record<string, string>;
}

function flatCopy(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * USD from the price catalog, and whether the catalog knew the model: usage on an unknown model is
 * unpriced (its 0 is "not counted", not "free"). On a cache hit this is what the cached answer cost
 * when it was first served upstream: analytics count it as savings, not spend.
 */
function costOf(provider: string | null, model: string | null, usage: Usage | undefined, multiplier: number): { cost: number; unpriced: boolean } {
  if (!provider || !model || !usage || usage.prompt_tokens + usage.completion_tokens === 0) return { cost: 0, unpriced: false };
  const price = priceOf(provider, model);
  if (!price) return { cost: 0, unpriced: true };
  return { cost: costNanoUsd(price, usage, multiplier) / NANO_USD_PER_USD, unpriced: false };
}

/** The caller's span (x-gw-parent-span-id, else its W3C traceparent), read only when one was sent. */
function parentSpanOf(state: ChatState): string | null {
  const given = state.headers?.parentSpanId ?? state.call.trace?.parentSpanId;
  if (given) return given;
  return state.call.req.headers.traceparent === undefined ? null : (remoteParentOf(state.call.req.headers)?.spanId ?? null);
}

/** The answer as logged: a chat completion whole, an embeddings list without its vectors. */
function loggedAnswer(state: ChatState): unknown {
  const answer = state.completion;
  if (!answer) return null;
  return isChatCompletion(answer) ? answer : loggedEmbeddingList(answer);
}

const modelOf = (request: Record<string, unknown> | undefined): string | null => (typeof request?.model === 'string' ? request.model : null);

/**
 * The model is the one called; on a cache hit (nothing called) the one the served target would
 * have called (its override_params applied), else the request's.
 */
export function chatLogEntry(state: ChatState): RequestLogEntry {
  const { call, principal } = state;
  const now = call.services.now();
  const usage = state.usage;
  const headers = state.headers;
  const provider = servingProvider(state);
  const model = state.model ?? modelOf(state.route?.request) ?? modelOf(state.request);
  const { cost, unpriced } = costOf(provider, model, usage, state.pricingMultiplier ?? 1);
  return {
    id: state.id,
    endpoint: state.origin.endpoint,
    ...(state.origin.prompt ? { prompt: state.origin.prompt } : {}),
    trace_id: call.traceId,
    span_id: headers?.spanId ?? call.trace?.spanId ?? null,
    parent_span_id: parentSpanOf(state),
    span_name: headers?.spanName ?? null,
    created_at: call.startedAt,
    organisation_id: principal.organisationId,
    workspace_id: principal.gatewayWorkspaceId,
    api_key_id: principal.keyId ?? '',
    auth_subject: principal.subject,
    config_id: state.plan?.configId ?? null,
    provider,
    model,
    status: state.status,
    latency_ms: now - call.startedAt,
    first_byte_ms: state.firstByteMs,
    stream: state.stream,
    prompt_tokens: usage?.prompt_tokens ?? 0,
    completion_tokens: usage?.completion_tokens ?? 0,
    total_tokens: usage?.total_tokens ?? 0,
    cost,
    cost_unpriced: unpriced,
    cache_status: state.cacheStatus,
    retry_count: state.route?.retries ?? 0,
    route: state.route?.steps ?? [],
    metadata: state.origin.logMetadata ? { ...headers?.metadata, ...state.origin.logMetadata } : (headers?.metadata ?? {}),
    request_headers: flatHeaders(call.req.headers),
    request_body: state.request,
    response_body: loggedAnswer(state),
    error: state.error ? { code: state.error.code, message: state.error.message, type: state.error.type } : null,
    guardrail_results: state.hookResults ? [...state.hookResults.before_request_hooks, ...state.hookResults.after_request_hooks] : null,
    upstream_ms: state.upstreamMs ?? 0,
  };
}
