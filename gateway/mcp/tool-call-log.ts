/**
 * The request log entry of one MCP tool call (endpoint `mcp`): the server as provider
 * (`mcp:<slug>`), the tool as model, so tool calls sit beside model requests in logs and analytics.
 * Headers go in as received: the log writer masks credentials (gateway/logs/prepare-entry.ts).
 */
import { randomUUID } from 'node:crypto';
import type { HookResult } from '../guardrails/hook-results.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { flatHeaders } from '../chat/log-entry.js';

export interface ToolCallOutcome {
  tool: string;
  arguments: unknown;
  startedAt: number;
  /** The HTTP-like status of the outcome: 200 answered, 400 refused (unknown or disabled tool), 429 rate limited, 446 guardrail denied, 502 upstream failure. */
  status: number;
  result?: unknown;
  error?: { code: string; message: string; type: string };
  guardrails: HookResult[];
}

const byteLength = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? ''));

export function toolCallLogEntry(context: McpToolCallContext, outcome: ToolCallOutcome): RequestLogEntry {
  const { call, principal, target } = context;
  const now = call.services.now();
  const request = { name: outcome.tool, arguments: outcome.arguments };
  return {
    id: randomUUID(),
    endpoint: 'mcp',
    trace_id: call.traceId,
    span_id: call.trace?.spanId ?? null,
    parent_span_id: null,
    span_name: null,
    created_at: outcome.startedAt,
    organisation_id: principal.organisationId,
    workspace_id: target.server.workspace_id,
    api_key_id: principal.keyId ?? '',
    auth_subject: principal.subject,
    config_id: null,
    provider: `mcp:${target.server.slug}`,
    model: outcome.tool,
    status: outcome.status,
    latency_ms: now - outcome.startedAt,
    first_byte_ms: null,
    stream: false,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cost: 0,
    cache_status: 'DISABLED',
    retry_count: 0,
    route: [],
    metadata: {
      ...context.metadata,
      mcp_server: target.server.slug,
      mcp_tool: outcome.tool,
      mcp_request_bytes: String(byteLength(request)),
      mcp_response_bytes: String(byteLength(outcome.result)),
    },
    request_headers: flatHeaders(call.req.headers),
    request_body: request,
    response_body: outcome.result ?? null,
    error: outcome.error ?? null,
    guardrail_results: outcome.guardrails.length ? outcome.guardrails : null,
  };
}
