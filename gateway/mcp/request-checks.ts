/**
 * JSON-RPC's own error codes for what a client got wrong (JSON-RPC 2.0 section 5.1): -32600
 * Invalid Request for a message that is not a JSON-RPC message, -32602 Invalid params for a
 * request whose params do not fit its method, each with a short message naming the field. The MCP
 * SDK's server would answer the latter -32603 Internal error with its validator's whole dump.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ClientRequestSchema, ErrorCode, JSONRPCMessageSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC error as the SDK's server answers a thrown one: its code and message, the message as written (McpError would prefix it). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** An McpError's message repeats its code ("MCP error -32603: ..."), which the client's SDK adds again: the answer carries the message alone. */
function asAnswered(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  return new RpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data);
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

interface RequestSchema {
  shape: { method: { value: unknown } };
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: Issue[] } };
}

/** The MCP schema of every request a client may send, by its method. */
const REQUEST_SCHEMAS = new Map<string, RequestSchema>(
  (ClientRequestSchema.options as unknown as RequestSchema[]).map((schema) => [String(schema.shape.method.value), schema]),
);

function describe(issues: Issue[]): string {
  const [first] = issues;
  if (!first) return 'the params do not fit the method';
  const where = first.path.map(String).join('.') || 'the request';
  const what = first.message.replace(/^Invalid input: /, '');
  return `${where}: ${what}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`;
}

/** The Invalid Request error for a message that is not JSON-RPC 2.0, or undefined when it is. */
export function invalidRequestOf(message: unknown): RpcError | undefined {
  if (JSONRPCMessageSchema.safeParse(message).success) return undefined;
  return new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message ("jsonrpc": "2.0" with a "method", or a response with "result" or "error")');
}

/** The Invalid params error for a request whose params do not fit its method, or undefined. */
export function invalidParamsOf(request: { method: string }): RpcError | undefined {
  const checked = REQUEST_SCHEMAS.get(request.method)?.safeParse(request);
  if (!checked || checked.success) return undefined;
  return new RpcError(ErrorCode.InvalidParams, `Invalid params for ${request.method}: ${describe(checked.error.issues)}`);
}

/**
 * Checks each request's params against its method's schema before the server's own handlers (its
 * built-in initialize and ping included) parse it, and answers the handlers' errors without their
 * code repeated in the message. The SDK keeps its handlers in a private map; the MCP gateway tests
 * fail if that changes.
 */
export function checkRequestParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, (request: { method: string }, extra: unknown) => Promise<unknown>> })._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error('The MCP SDK server no longer keeps its request handlers where gw checks their params');
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      const invalid = invalidParamsOf(request);
      if (invalid) throw invalid;
      try {
        return await handler(request, extra);
      } catch (error) {
        throw asAnswered(error);
      }
    });
  }
}
