import { ApiError, type ErrorType } from './errors.js';

/**
 * SCIM (RFC 7644 section 3.12), OAuth (RFC 6749 section 5.2), Anthropic (the Messages door) and
 * A2A (JSON-RPC and HTTP+JSON, the A2A door) clients parse their protocol's own error bodies, so operations that speak those protocols
 * (`x-gw-error-format` in the spec) answer errors in that shape instead of gw's error body.
 * Everything else is unchanged.
 */
export type ErrorFormat = 'scim' | 'oauth' | 'anthropic' | 'jsonrpc' | 'a2a-rest' | 'a2a-rest-v03';

const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An error whose body is already in a protocol's shape. */
export class ProtocolError extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    type: ErrorType,
    readonly body: unknown,
    headers: Record<string, string>,
  ) {
    super(status, code, message, type, { headers });
  }
}

const TYPE_OF_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
};

/** scimType values of RFC 7644 table 9, for a 400 or 409. */
export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

export function scimError(status: number, detail: string, scimType?: ScimType): ProtocolError {
  const body = { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
  return new ProtocolError(status, scimType ?? 'scim_error', detail, TYPE_OF_STATUS[status] ?? 'api_error', body, { 'content-type': 'application/scim+json' });
}

/** RFC 6749 error codes (and RFC 7591's for registration). */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): ProtocolError {
  return new ProtocolError(status, error, description, TYPE_OF_STATUS[status] ?? 'api_error', { error, error_description: description }, {
    'cache-control': 'no-store',
    ...headers,
  });
}

/** Anthropic's error types (its API reference), by the status each goes with. */
const ANTHROPIC_TYPE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const ANTHROPIC_TYPES = new Set(Object.values(ANTHROPIC_TYPE_OF_STATUS));

/**
 * `{type: "error", error: {type, message}}` with the status kept (gw's own 446 included, with
 * `hook_results` beside). An upstream error that named an Anthropic type keeps it; any other
 * takes the type of its status.
 */
export function anthropicError(error: ApiError): ProtocolError {
  const type = ANTHROPIC_TYPES.has(error.code) ? error.code : (ANTHROPIC_TYPE_OF_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'));
  const message = error.param ? `${error.message} (${error.param})` : error.message;
  const hookResults = (error as { hookResults?: unknown }).hookResults;
  const body = { type: 'error', error: { type, message }, ...(hookResults !== undefined ? { hook_results: hookResults } : {}) };
  return new ProtocolError(error.status, error.code, error.message, error.type, body, error.headers);
}

/**
 * A JSON-RPC 2.0 error answer with the HTTP status kept: a body that is not JSON is -32700 (Parse
 * error); anything else gw refuses before the request is read (no credential, no scope, no such
 * agent, a body too large) is -32000 (server error) with gw's code and type in `data`. The id is
 * null: the request was not read, or not as a JSON-RPC request.
 */
export function jsonRpcError(error: ApiError): ProtocolError {
  const code = error.code === 'invalid_json' ? -32700 : -32000;
  const body = { jsonrpc: '2.0', id: null, error: { code, message: error.message, data: { type: error.type, code: error.code, status: error.status } } };
  return new ProtocolError(error.status, error.code, error.message, error.type, body, error.headers);
}

/** google.rpc.Code names, by the HTTP status each maps to (what A2A's HTTP+JSON errors carry in `status`). */
const RPC_STATUS_OF_HTTP: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  409: 'ALREADY_EXISTS',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  446: 'PERMISSION_DENIED',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * The A2A HTTP+JSON binding's error body (AIP-193): `{error: {code: <HTTP status>, status, message,
 * details: [ErrorInfo]}}`. A2A's own errors name their reason in the `a2a-protocol.org` domain;
 * gw's refusals name theirs (gw's error code, upper-cased) in the `gw` domain with `type` and
 * `code` in the metadata. `extra` (hook results) sits beside, as in gw's other error bodies.
 */
export function a2aRestErrorBody(status: number, message: string, info: { reason: string; domain: 'a2a-protocol.org' | 'gw'; metadata?: Record<string, string> }, extra: Record<string, unknown> = {}): unknown {
  const statusName = info.domain === 'a2a-protocol.org' && A2A_STATUS_OF_REASON[info.reason] ? A2A_STATUS_OF_REASON[info.reason]! : (RPC_STATUS_OF_HTTP[status] ?? (status >= 500 ? 'INTERNAL' : 'UNKNOWN'));
  const detail = { '@type': ERROR_INFO, reason: info.reason, domain: info.domain, ...(info.metadata ? { metadata: info.metadata } : {}) };
  return { error: { code: status, status: statusName, message, details: [detail], ...extra } };
}

const A2A_STATUS_OF_REASON: Record<string, string> = {
  TASK_NOT_CANCELABLE: 'FAILED_PRECONDITION',
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'FAILED_PRECONDITION',
  UNSUPPORTED_OPERATION: 'FAILED_PRECONDITION',
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'FAILED_PRECONDITION',
  EXTENSION_SUPPORT_REQUIRED: 'FAILED_PRECONDITION',
  VERSION_NOT_SUPPORTED: 'FAILED_PRECONDITION',
};

/** gw's refusal before an HTTP+JSON A2A request is read (no credential, no scope, no such agent), in that binding's shape. */
export function a2aRestError(error: ApiError): ProtocolError {
  const hookResults = (error as { hookResults?: unknown }).hookResults;
  const body = a2aRestErrorBody(error.status, error.message, { reason: error.code.toUpperCase(), domain: 'gw', metadata: { type: error.type, code: error.code } }, hookResults !== undefined ? { hook_results: hookResults } : {});
  return new ProtocolError(error.status, error.code, error.message, error.type, body, error.headers);
}

/**
 * gw's refusal before an A2A 0.3 HTTP+JSON request is read, in that transport's shape: the
 * JSON-RPC error object without its envelope (`{code, message, data}`), codes as jsonRpcError's.
 */
function a2aRestV03Error(error: ApiError): ProtocolError {
  const envelope = jsonRpcError(error).body as { error: unknown };
  return new ProtocolError(error.status, error.code, error.message, error.type, envelope.error, error.headers);
}

/** Any error thrown on an operation of that format, in the format's shape. */
export function inErrorFormat(format: ErrorFormat | undefined, error: unknown): unknown {
  if (format === 'anthropic' && error instanceof ApiError && !(error instanceof ProtocolError)) return anthropicError(error);
  if (format === 'jsonrpc' && error instanceof ApiError && !(error instanceof ProtocolError)) return jsonRpcError(error);
  if (format === 'a2a-rest' && error instanceof ApiError && !(error instanceof ProtocolError)) return a2aRestError(error);
  if (format === 'a2a-rest-v03' && error instanceof ApiError && !(error instanceof ProtocolError)) return a2aRestV03Error(error);
  if (!format || !(error instanceof ApiError) || error instanceof ProtocolError || error.status >= 500) return error;
  if (format === 'scim') {
    const scimType: ScimType | undefined = error.status === 409 ? 'uniqueness' : error.status === 400 ? 'invalidValue' : undefined;
    return scimError(error.status, error.param ? `${error.message} (${error.param})` : error.message, scimType);
  }
  const code = error.status === 401 ? 'invalid_client' : error.status === 403 ? 'access_denied' : 'invalid_request';
  return oauthError(error.status, code, error.message);
}

export function errorFormatOf(operation: unknown): ErrorFormat | undefined {
  return (operation as { 'x-gw-error-format'?: ErrorFormat } | undefined)?.['x-gw-error-format'];
}
