/**
 * Typed errors. Everything that fails a request throws one of these; errorBody (below) turns it
 * into the one error body `{error: {code, message, param?, type}}`.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'upstream_error'
  | 'guardrail_error'
  | 'api_error';

export interface ErrorOptions {
  param?: string | null;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: ErrorType,
    options: ErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }
}

export class ValidationError extends ApiError {
  constructor(message: string, param: string | null = null, code = 'invalid_request') {
    super(400, code, message, 'invalid_request_error', { param });
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid gw API key is required in the x-gw-api-key header', code = 'invalid_api_key') {
    super(401, code, message, 'authentication_error');
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string, code = 'permission_denied') {
    super(403, code, message, 'permission_error');
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string, id?: string) {
    super(404, 'not_found', id === undefined ? `${what} not found` : `${what} ${id} not found`, 'not_found_error');
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, code = 'conflict', param: string | null = null) {
    super(409, code, message, 'conflict_error', { param });
  }
}

export class RateLimitedError extends ApiError {
  constructor(message: string, headers: Record<string, string> = {}, code = 'rate_limit_exceeded') {
    super(429, code, message, 'rate_limit_error', { headers });
  }
}

export class TimeoutError extends ApiError {
  constructor(message: string) {
    super(408, 'request_timeout', message, 'timeout_error');
  }
}

/** An upstream provider answered with an error: its status and message are kept. */
export class UpstreamError extends ApiError {
  constructor(status: number, message: string, code = 'upstream_error', options: ErrorOptions = {}) {
    super(status, code, message, 'upstream_error', options);
  }
}

/**
 * A guardrail with a deny action failed (status 446, which gateway users already handle). The body
 * carries every guardrail's results as `hook_results` beside the error.
 */
export class GuardrailDeniedError extends ApiError {
  constructor(
    message: string,
    readonly hookResults: unknown,
  ) {
    super(446, 'guardrail_denied', message, 'guardrail_error');
  }
}

export class InternalError extends ApiError {
  constructor(traceId: string) {
    super(500, 'internal_error', `Internal error; quote trace id ${traceId} when reporting it`, 'api_error');
  }
}

export interface ErrorBody {
  /** All strings; `param` only when one field is at fault (the product description's error object has no nulls). */
  error: { code: string; message: string; param?: string; type: ErrorType };
  hook_results?: unknown;
}

export function errorBody(error: ApiError): ErrorBody {
  // A protocol's own error shape (core/protocol-errors.ts) goes out as it is.
  if ('body' in error && error.body !== undefined) return error.body as ErrorBody;
  const fields = error.param === null
    ? { code: error.code, message: error.message, type: error.type }
    : { code: error.code, message: error.message, param: error.param, type: error.type };
  const body: ErrorBody = { error: fields };
  if (error instanceof GuardrailDeniedError) body.hook_results = error.hookResults;
  return body;
}
