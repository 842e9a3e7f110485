/**
 * The MCP tool-call pipeline: capability check, rate limits (`mcp_tools` policies), guardrails
 * before the call, the upstream call with the MCP SDK client, guardrails on the result, and one
 * request log entry whatever the outcome.
 */
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ApiError } from '../../core/errors.js';
import { requestFacts } from '../limits/policy-match.js';
import { toolCallLogEntry, type ToolCallOutcome } from './tool-call-log.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { guardToolCall, guardToolResult } from './tool-guardrails.js';
import { upstreamFailure } from './upstream-failure.js';

/** JSON-RPC error code gw answers a rate-limited tool call with (implementation-defined server error range). */
export const RATE_LIMITED_CODE = -32029;

/** Refuses a tool the server does not offer through gw: unknown to the last sync, or disabled. */
export function assertToolEnabled(context: McpToolCallContext, name: string): void {
  const capability = context.target.capabilities.find((item) => item.record.type === 'tool' && item.record.name === name);
  if (!capability) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (MCP server ${context.target.server.slug} offers no such tool)`);
  if (!capability.enabled) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} is disabled on MCP server ${context.target.server.slug}`);
}

/** `mcp_tools` rate limits, with the conditions and group_by of `llm` policies; over a limit: ApiError 429. */
export async function checkToolRateLimits(context: McpToolCallContext): Promise<void> {
  const { principal, call } = context;
  const apiKeyId = principal.keyId ?? '';
  const workspaceId = context.target.server.workspace_id;
  const policies = await call.services.limitPolicies.forRequest({ organisationId: principal.organisationId, apiKeyId, workspaceId });
  if (!policies.rate.length) return;
  const facts = requestFacts({ apiKeyId, workspaceId, metadata: context.metadata });
  await call.services.limits.checkRateLimits(policies, facts, { requests: 1, tokens: 0, cost: 0 }, 'mcp_tools');
}

export function rateLimitedError(error: ApiError): McpError {
  return new McpError(RATE_LIMITED_CODE, error.message, { type: error.type, code: error.code, status: 429 });
}

/** Records a refused or failed tool call in the request log. */
export function logToolCall(context: McpToolCallContext, outcome: ToolCallOutcome): void {
  context.call.services.requestLogs.record(toolCallLogEntry(context, outcome));
}

const asError = (status: number, code: string, message: string, type: string) => ({ status, error: { code, message, type } });

export type ToolCallParams = { name: string; arguments?: Record<string, unknown> };

/** The SDK client's way to the upstream: `options` carry the client's cancellation and progress token through (upstream-relay.ts). */
export const callWithClient =
  (context: McpToolCallContext, options: RequestOptions) =>
  async (params: ToolCallParams): Promise<CallToolResult> =>
    (await (await context.upstream()).client.request({ method: 'tools/call', params }, CallToolResultSchema, options)) as CallToolResult;

/** `callUpstream` makes the call once it is allowed: with the SDK client, or directly (direct-tool-call.ts). */
export async function runToolCall(context: McpToolCallContext, params: ToolCallParams, callUpstream: (params: ToolCallParams) => Promise<CallToolResult>): Promise<CallToolResult> {
  const { call, target } = context;
  const outcome: ToolCallOutcome = { tool: params.name, arguments: params.arguments ?? {}, startedAt: call.services.now(), status: 200, guardrails: [] };
  try {
    try {
      assertToolEnabled(context, params.name);
    } catch (error) {
      Object.assign(outcome, asError(400, 'mcp_tool_not_enabled', (error as Error).message, 'invalid_request_error'));
      throw error;
    }
    if (!context.admitted) {
      try {
        await checkToolRateLimits(context);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        Object.assign(outcome, asError(error.status, error.code, error.message, error.type));
        throw error.status === 429 ? rateLimitedError(error) : new McpError(ErrorCode.InternalError, error.message);
      }
    }

    const before = await guardToolCall(context, params.name, params.arguments ?? {});
    outcome.guardrails.push(...before.results);
    if (before.denied) {
      outcome.result = before.denied;
      Object.assign(outcome, asError(446, 'guardrail_denied', before.message!, 'guardrail_error'));
      return before.denied;
    }
    if (before.arguments) params = { ...params, arguments: before.arguments };

    let result: CallToolResult;
    try {
      result = await callUpstream(params);
    } catch (error) {
      const failure = upstreamFailure(target.server.slug, error);
      Object.assign(outcome, asError(502, 'mcp_upstream_error', failure.message, 'upstream_error'));
      throw failure;
    }

    const after = await guardToolResult(context, params.name, result);
    outcome.guardrails.push(...after.results);
    if (after.denied) {
      outcome.result = after.denied;
      Object.assign(outcome, asError(446, 'guardrail_denied', after.message!, 'guardrail_error'));
      return after.denied;
    }
    if (after.result) result = after.result;
    outcome.result = result;
    if (result.isError) outcome.error = { code: 'mcp_tool_error', message: 'The tool answered with isError', type: 'upstream_error' };
    return result;
  } finally {
    logToolCall(context, outcome);
  }
}
