/**
 * The request log entry of one MCP tool call (endpoint `mcp`): the server as provider
 * (`mcp:<slug>`), the tool as model, so tool calls sit beside model requests in logs and analytics.
 * Headers go in as received: the log writer masks credentials (gateway/logs/prepare-entry.ts).
 */
import type { HookResult } from '../guardrails/hook-results.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { unmeteredLogEntry } from '../logs/unmetered-entry.js';

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
  return unmeteredLogEntry(call, principal, {
    endpoint: 'mcp',
    created_at: outcome.startedAt,
    workspace_id: target.server.workspace_id,
    provider: `mcp:${target.server.slug}`,
    model: outcome.tool,
    status: outcome.status,
    latency_ms: now - outcome.startedAt,
    first_byte_ms: null,
    stream: false,
    metadata: {
      ...context.metadata,
      mcp_server: target.server.slug,
      mcp_tool: outcome.tool,
      mcp_request_bytes: String(byteLength(request)),
      mcp_response_bytes: String(byteLength(outcome.result)),
    },
    request_body: request,
    response_body: outcome.result ?? null,
    error: outcome.error ?? null,
    guardrail_results: outcome.guardrails.length ? outcome.guardrails : null,
  });
}
