/**
 * Gemini error answers (AI Studio and Vertex AI): `{"error": {"code": 400, "message": "...",
 * "status": "INVALID_ARGUMENT"}}`, sometimes wrapped in a one-element array. The same object can
 * arrive as an event inside a stream; it then keeps its own HTTP code.
 */
import { UpstreamError } from '../../../core/errors.js';
import type { ProviderError } from '../types.js';

interface GoogleError {
  code?: unknown;
  message?: unknown;
  status?: unknown;
}

export function googleErrorOf(body: unknown): GoogleError | undefined {
  const unwrapped = Array.isArray(body) ? body[0] : body;
  const error = (unwrapped as { error?: unknown } | null)?.error;
  return error !== null && typeof error === 'object' ? (error as GoogleError) : undefined;
}

export function parseGeminiError(status: number, body: unknown, provider = 'gemini'): ProviderError {
  const error = googleErrorOf(body);
  if (error) {
    return {
      message: typeof error.message === 'string' ? error.message : `${provider} answered with status ${status}`,
      ...(typeof error.status === 'string' ? { code: error.status } : {}),
    };
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim() };
  return { message: `${provider} answered with status ${status}` };
}

export function streamErrorOf(error: GoogleError): UpstreamError {
  const status = typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 502;
  const message = typeof error.message === 'string' ? error.message : 'the upstream reported an error mid-stream';
  return new UpstreamError(status, `gemini stream failed: ${message}`, typeof error.status === 'string' ? error.status : 'upstream_stream_error');
}
