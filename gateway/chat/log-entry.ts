/**
 * The request log entry for one chat call, whatever its outcome. Credentials and the headers the
 * request or the operator named sensitive are stored only as hashes.
 */
import { sha256Hex } from '../../server/sha256.js';
import type { IncomingHttpHeaders } from 'node:http';
import { costNanoUsd, NANO_USD_PER_USD, priceOf } from '../limits/pricing/cost.js';
import type { Usage } from '../providers/types.js';
import type { RequestLogEntry } from '../request-log.js';
import type { ChatState } from './chat-state.js';
import { servingProvider } from './respond.js';

/** Always hashed: they carry credentials. */
const CREDENTIAL_HEADERS = ['authorization', 'x-gw-api-key', 'api-key', 'x-api-key', 'cookie', 'x-gw-cloud3-secret-access-key', 'x-gw-cloud3-session-token'];

/** Same form as gateway/logs/prepare-entry.ts, so the writer's masking pass leaves these alone. */
function hashed(value: string): string {
  return 'sha256:' + sha256Hex(value);
}

export function loggedHeaders(headers: IncomingHttpHeaders, sensitive: readonly string[], organisationMasked: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const secret = CREDENTIAL_HEADERS.includes(name) || sensitive.includes(name) || organisationMasked.includes(name);
    out[name] = secret ? hashed(value) : value;
  }
  return out;
}

/**
 * USD from the bundled pricing table. On a cache hit this is what the cached answer cost when it
 * was first served upstream: analytics count it as savings, not spend.
 */
function costUsd(provider: string | null, model: string | null, usage: Usage | undefined, multiplier: number): number {
  if (!provider || !model || !usage) return 0;
  return costNanoUsd(priceOf(provider, model), usage, multiplier) / NANO_USD_PER_USD;
}

export function chatLogEntry(state: ChatState): RequestLogEntry {
  const { call, principal } = state;
  const now = call.services.now();
  const usage = state.usage;
  const headers = state.headers;
  const provider = servingProvider(state);
  const model = state.model ?? (typeof state.request.model === 'string' ? state.request.model : null);
  return {
    id: state.id,
    endpoint: 'chat.completions',
    trace_id: call.traceId,
    span_id: headers?.spanId ?? null,
    parent_span_id: headers?.parentSpanId ?? null,
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
    cost: costUsd(provider, model, usage, state.pricingMultiplier ?? 1),
    cache_status: state.cacheStatus,
    retry_count: state.route?.retries ?? 0,
    route: state.route?.steps ?? [],
    metadata: headers?.metadata ?? {},
    request_headers: loggedHeaders(call.req.headers, headers?.sensitiveHeaderNames ?? [], call.services.config.headersToMask),
    request_body: state.request,
    response_body: state.completion ?? null,
    error: state.error ? { code: state.error.code, message: state.error.message, type: state.error.type } : null,
    guardrail_results: state.hookResults ? [...state.hookResults.before_request_hooks, ...state.hookResults.after_request_hooks] : null,
  };
}
