import type { Context } from 'openapi-backend';
import type { operations } from '../generated/types.js';
import type { Call } from '../core/call.js';

/** What a handler returns; one post-response step serialises it. */
export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returned by a handler that wrote the response itself (a stream). */
export const STREAMED = Symbol('streamed');

export type HandlerResult = Reply | typeof STREAMED;

export type Handler = (c: Context, call: Call) => Promise<HandlerResult>;

export type OperationId = keyof operations;

/** The JSON request body of an operation, as generated from the spec. */
export type RequestBody<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The query parameters of an operation, after validation and coercion. */
export type Query<Op extends OperationId> = operations[Op]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

export function body<Op extends OperationId>(c: Context): RequestBody<Op> {
  return (c.request.requestBody ?? {}) as RequestBody<Op>;
}

export function query<Op extends OperationId>(c: Context): Query<Op> {
  return c.request.query as Query<Op>;
}

export function pathId(c: Context): string {
  return String(c.request.params.id);
}
