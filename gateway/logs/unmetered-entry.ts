/**
 * The log entry of a call no model answered (a guardrail invocation, an MCP tool call, an A2A
 * call): the caller and trace from the call, no tokens, cost, cache or route. Headers go in as
 * received: the log writer masks credentials (prepare-entry.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { flatHeaders } from '../chat/log-entry.js';

/** What differs between such calls; everything else is the call's or zero. */
export type UnmeteredFields = Pick<
  RequestLogEntry,
  'endpoint' | 'created_at' | 'workspace_id' | 'provider' | 'model' | 'status' | 'latency_ms' | 'first_byte_ms' | 'stream' | 'metadata' | 'request_body' | 'response_body' | 'error' | 'guardrail_results'
>;

export function unmeteredLogEntry(call: Call, principal: Principal, fields: UnmeteredFields): RequestLogEntry {
  return {
    id: randomUUID(),
    trace_id: call.traceId,
    span_id: call.trace?.spanId ?? null,
    parent_span_id: null,
    span_name: null,
    organisation_id: principal.organisationId,
    api_key_id: principal.keyId ?? '',
    auth_subject: principal.subject,
    config_id: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cost: 0,
    cache_status: 'DISABLED',
    retry_count: 0,
    route: [],
    request_headers: flatHeaders(call.req.headers),
    ...fields,
  };
}
