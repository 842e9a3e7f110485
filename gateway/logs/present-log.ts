import type { RequestLogRecord } from '../../store/repositories/request-logs.js';

/** Every field a log has over the API (and that an export may ask for). */
export const LOG_FIELDS = [
  'id', 'object', 'endpoint', 'source', 'organisation_id', 'workspace_id', 'api_key_id', 'auth_subject', 'trace_id', 'span_id', 'parent_span_id',
  'span_name', 'created_at', 'config_id', 'prompt_id', 'prompt_version', 'prompt_label', 'provider', 'model', 'status', 'latency_ms', 'first_byte_ms', 'stream',
  'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'cost_unpriced', 'cache_status', 'retry_count', 'route', 'metadata',
  'error', 'request_headers', 'request_body', 'response_body', 'guardrail_results',
] as const;

export type LogField = (typeof LOG_FIELDS)[number];

/** The API shape of a log: times as ISO strings, the rest as recorded. */
export function presentLog(record: RequestLogRecord): Record<string, unknown> {
  return { ...record, object: 'log', api_key_id: record.api_key_id || null, created_at: new Date(record.created_at).toISOString() };
}

/** A list entry: the summary without headers and bodies (GET one log for those). */
export function presentLogSummary(record: RequestLogRecord): Record<string, unknown> {
  const { request_headers: _h, request_body: _q, response_body: _r, guardrail_results: _g, ...summary } = presentLog(record);
  return summary;
}

export function pickFields(log: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = log[field] ?? null;
  return out;
}
