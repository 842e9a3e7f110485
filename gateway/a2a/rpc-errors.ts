/**
 * The A2A door's refusals, in its own shape: a JSON-RPC error carrying the request's id, with an
 * HTTP status that says the same (`data.type` names what gw refused, as error bodies' `type` do).
 */
import type { Call } from '../../core/call.js';
import { sendJson } from '../../core/respond.js';

export type RpcId = string | number | null;

/** Codes JSON-RPC and A2A define, and gw's own for its refusals (implementation-defined server errors). */
export const RPC = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  unsupportedOperation: -32004,
  rateLimited: -32029,
  guardrailDenied: -32046,
} as const;

export class A2aRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The log's error: the type and the JSON-RPC code. */
  get logError() {
    return { code: String(this.data.code ?? this.data.type), message: this.message, type: String(this.data.type) };
  }
}

export function rpcError(id: RpcId, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function sendRefusal(call: Call, id: RpcId, refusal: A2aRefusal): void {
  sendJson(call.res, refusal.status, rpcError(id, refusal.code, refusal.message, refusal.data), refusal.headers);
}
