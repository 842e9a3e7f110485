/**
 * How the door writes what it relays, per A2A protocol binding: the relay itself (checks, the
 * agent's JSON-RPC, bridging, guardrails, the log) is the same for every binding; only the shape
 * of the caller's answers, streamed events and refusals differs. JSON-RPC answers carry the
 * envelope (`{jsonrpc, id, result | error}`); the HTTP+JSON binding (rest-binding.ts) unwraps it.
 */
import type { Call } from '../../core/call.js';
import { sendJson } from '../../core/respond.js';
import { sendRefusal, type A2aRefusal, type RpcId } from './rpc-errors.js';

export interface A2aBinding {
  /** For the log: `jsonrpc` or `rest`. */
  name: 'jsonrpc' | 'rest';
  /** A plain answer, given as the JSON-RPC envelope (a result, or the agent's error). */
  answer(call: Call, envelope: Record<string, unknown>, headers: Record<string, string>): void;
  /** One SSE event for a streamed envelope (a result, or an error ending the stream). */
  event(envelope: Record<string, unknown>): string;
  refuse(call: Call, id: RpcId, refusal: A2aRefusal): void;
}

export const jsonRpcBinding: A2aBinding = {
  name: 'jsonrpc',
  answer: (call, envelope, headers) => sendJson(call.res, 200, envelope, headers),
  event: (envelope) => `data: ${JSON.stringify(envelope)}\n\n`,
  refuse: sendRefusal,
};
