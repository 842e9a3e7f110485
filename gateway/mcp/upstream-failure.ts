import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AnswerTooLargeError } from '../outbound/answer-cap.js';

/** The `data.type` of the error a request gets when its answer was past GW_MAX_UPSTREAM_ANSWER_BYTES. */
export const TOO_LARGE = 'upstream_answer_too_large';

/** The size bound an error reports, when it is that one. */
function limitPassed(error: unknown): number | undefined {
  if (error instanceof AnswerTooLargeError) return error.limit;
  const data = error instanceof McpError ? (error.data as { type?: unknown; limit?: unknown } | undefined) : undefined;
  return data?.type === TOO_LARGE && typeof data.limit === 'number' ? data.limit : undefined;
}

/**
 * What the caller gets when the MCP server fails a request: its own JSON-RPC error as it is; a
 * lost connection, a refused one, a timeout or an answer past the size bound as one clear error
 * naming the server.
 */
export function upstreamFailure(slug: string, error: unknown): McpError {
  const limit = limitPassed(error);
  if (limit !== undefined) {
    return new McpError(ErrorCode.InternalError, `MCP server ${slug} answered more than ${limit} bytes, the most gw reads from another server (GW_MAX_UPSTREAM_ANSWER_BYTES)`, { type: TOO_LARGE });
  }
  if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) return error;
  const reason = error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpError(ErrorCode.RequestTimeout, `MCP server ${slug} did not answer in time`, { type: 'timeout_error' });
  }
  return new McpError(ErrorCode.InternalError, `MCP server ${slug} is unreachable or closed the connection: ${reason}`, { type: 'upstream_error' });
}
