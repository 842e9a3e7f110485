/**
 * Anthropic error answers: `{"type": "error", "error": {"type": "rate_limit_error", "message": "..."}}`,
 * both as non-2xx bodies and as `error` events inside a stream. A stream error keeps the HTTP status
 * the same error type has as a plain answer.
 */
import { UpstreamError } from '../../../core/errors.js';
import type { ProviderError } from '../types.js';

const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function parseAnthropicError(status: number, body: unknown): ProviderError {
  const error = (body as { error?: { type?: unknown; message?: unknown } } | null)?.error;
  if (error && typeof error === 'object') {
    return {
      message: typeof error.message === 'string' ? error.message : `anthropic answered with status ${status}`,
      ...(typeof error.type === 'string' ? { code: error.type } : {}),
    };
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim() };
  return { message: `anthropic answered with status ${status}` };
}

export function streamErrorOf(payload: unknown): UpstreamError {
  const { message, code } = parseAnthropicError(502, payload);
  return new UpstreamError(STATUS_OF_ERROR_TYPE[code ?? ''] ?? 502, `anthropic stream failed: ${message}`, code ?? 'upstream_stream_error');
}
