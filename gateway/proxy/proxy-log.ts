/**
 * The request log entry of one pass-through call (endpoint `proxy`), whatever its outcome. The
 * bodies are streamed, not kept: the entry records the method, path, content types and byte
 * counts instead, with the model, tokens and cost where the body and the answer tell them.
 * Headers go in as received; the log writer masks credentials.
 */
import type { ApiError } from '../../core/errors.js';
import type { Call } from '../../core/call.js';
import type { Principal } from '../../core/auth/principal.js';
import type { HookResults } from '../guardrails/hook-results.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { flatHeaders } from '../chat/log-entry.js';
import { NANO_USD_PER_USD } from '../limits/pricing/cost.js';
import type { Usage } from '../providers/types.js';

export interface ProxyOutcome {
  id: string;
  method: string;
  /** The path below /v1, query included. */
  path: string;
  metadata: Record<string, string>;
  configId: string | null;
  provider: string | null;
  /** The body's model (without a saved provider's `@slug/`), else the answer's. */
  model: string | null;
  /** From the answer, where it reports usage (answer-usage.ts). */
  usage?: Usage;
  costNanoUsd?: number;
  unpriced?: boolean;
  status: number;
  firstByteMs: number | null;
  requestBytes: number;
  responseBytes: number;
  responseContentType: string | null;
  upstreamMs: number;
  error?: ApiError;
  hookResults?: HookResults;
}

export function proxyLogEntry(call: Call, principal: Principal, outcome: ProxyOutcome): RequestLogEntry {
  const contentType = call.req.headers['content-type'];
  return {
    id: outcome.id,
    endpoint: 'proxy',
    trace_id: call.traceId,
    span_id: call.trace?.spanId ?? null,
    parent_span_id: null,
    span_name: null,
    created_at: call.startedAt,
    organisation_id: principal.organisationId,
    workspace_id: principal.gatewayWorkspaceId,
    api_key_id: principal.keyId ?? '',
    auth_subject: principal.subject,
    config_id: outcome.configId,
    provider: outcome.provider,
    model: outcome.model,
    status: outcome.status,
    latency_ms: call.services.now() - call.startedAt,
    first_byte_ms: outcome.firstByteMs,
    stream: false,
    prompt_tokens: outcome.usage?.prompt_tokens ?? 0,
    completion_tokens: outcome.usage?.completion_tokens ?? 0,
    total_tokens: outcome.usage?.total_tokens ?? 0,
    cost: (outcome.costNanoUsd ?? 0) / NANO_USD_PER_USD,
    ...(outcome.unpriced ? { cost_unpriced: true } : {}),
    cache_status: 'DISABLED',
    retry_count: 0,
    route: [],
    metadata: outcome.metadata,
    request_headers: flatHeaders(call.req.headers),
    request_body: { method: outcome.method, path: outcome.path, content_type: contentType ?? null, bytes: outcome.requestBytes },
    response_body: { content_type: outcome.responseContentType, bytes: outcome.responseBytes },
    error: outcome.error ? { code: outcome.error.code, message: outcome.error.message, type: outcome.error.type } : null,
    guardrail_results: outcome.hookResults ? outcome.hookResults.before_request_hooks : null,
    upstream_ms: outcome.upstreamMs,
  };
}
