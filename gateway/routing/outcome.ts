/**
 * What one attempt at a target produced. Routing decides on these alone (retry, fall back,
 * stop), so the transport, the provider adapter and the output guardrails each report here.
 */
export type FailureReason =
  /** The upstream answered with a non-2xx status. */
  | 'status'
  /** No response headers within the leaf's timeout. */
  | 'timeout'
  /** The connection failed: refused, reset, hung up. */
  | 'connection'
  /** A guardrail denied the request or the answer: counts as a failure for fallback. */
  | 'guardrail'
  /** A saved provider's own rate limit or budget refused the attempt (429) before any upstream call. */
  | 'limit'
  /** Anything else (a translation error); not retried. */
  | 'other';

export interface Success<T> {
  ok: true;
  status: number;
  value: T;
}

export interface Failure {
  ok: false;
  reason: FailureReason;
  /** The HTTP status the failure stands for: the upstream's, 408 for a timeout, 446 for a guardrail denial, null for a connection error. */
  status: number | null;
  /** The error to answer with when no other target serves. */
  error: unknown;
  /** Upstream response headers (lower-case), for Retry-After. */
  headers?: Record<string, string>;
}

export type Outcome<T> = Success<T> | Failure;

/** Status used for a timeout, so `on_status_codes: [408]` can name it. */
export const TIMEOUT_STATUS = 408;
/** Status of a guardrail denial. */
export const GUARDRAIL_DENIED_STATUS = 446;
/** Status of a limit refusal (RateLimitedError). */
export const LIMIT_REFUSED_STATUS = 429;

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** True for errors that mean "the connection failed" (refused, reset, socket hang up), looking through `cause` chains. */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && /socket hang up|other side closed/i.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Classifies an error thrown while calling a target (transport, adapter, guardrail) for routing.
 * `upstreamHeaders` are the upstream's response headers when it answered, for Retry-After.
 */
export function failureFromError(error: unknown, upstreamHeaders?: Record<string, string>): Failure {
  const apiError = error as { status?: unknown; type?: unknown };
  const status = typeof apiError?.status === 'number' ? apiError.status : null;
  if (apiError?.type === 'guardrail_error' || status === GUARDRAIL_DENIED_STATUS) return { ok: false, reason: 'guardrail', status: GUARDRAIL_DENIED_STATUS, error };
  // Only the gateway's own limits throw rate_limit_error; an upstream 429 is an upstream_error.
  if (apiError?.type === 'rate_limit_error') return { ok: false, reason: 'limit', status: LIMIT_REFUSED_STATUS, error };
  if (apiError?.type === 'timeout_error' || status === TIMEOUT_STATUS) return { ok: false, reason: 'timeout', status: TIMEOUT_STATUS, error };
  // Before the status check: a transport may wrap a refused connection in a 502 UpstreamError.
  if (isConnectionError(error)) return { ok: false, reason: 'connection', status: null, error };
  if (apiError?.type === 'upstream_error' && status !== null) return { ok: false, reason: 'status', status, error, headers: upstreamHeaders };
  return { ok: false, reason: 'other', status, error };
}
