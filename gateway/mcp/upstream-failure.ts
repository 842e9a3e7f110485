import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the caller gets when the MCP server fails a request: its own JSON-RPC error as it is; a
 * lost connection, a refused one or a timeout as one clear error naming the server.
 */
export function upstreamFailure(slug: string, error: unknown): McpError {
  if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) return error;
  const reason = error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpError(ErrorCode.RequestTimeout, `MCP server ${slug} did not answer in time`, { type: 'timeout_error' });
  }
  return new McpError(ErrorCode.InternalError, `MCP server ${slug} is unreachable or closed the connection: ${reason}`, { type: 'upstream_error' });
}
