/**
 * Bedrock error answers. Non-2xx bodies are JSON `{"message": "..."}` (some services spell it
 * `Message`); the error type travels in the x-amzn-errortype header, which the contract does not
 * hand to parseError, so a `__type` in the body is used when present. Exceptions inside a
 * ConverseStream keep the HTTP status the same exception has as a plain answer.
 */
import { UpstreamError } from '../../../core/errors.js';
import type { ProviderError } from '../types.js';

/** `ValidationException:http://internal.amazon.com/...` or `com.amazon...#ValidationException` -> `ValidationException`. */
function errorTypeName(raw: string): string {
  return raw.split(':')[0]!.split('#').at(-1)!;
}

export function parseBedrockError(status: number, body: unknown): ProviderError {
  if (body !== null && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    const message = fields.message ?? fields.Message;
    const type = fields.__type ?? fields.code;
    return {
      message: typeof message === 'string' ? message : `bedrock answered with status ${status}`,
      ...(typeof type === 'string' ? { code: errorTypeName(type) } : {}),
    };
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim() };
  return { message: `bedrock answered with status ${status}` };
}

const STREAM_EXCEPTION_STATUS: Record<string, number> = {
  validationException: 400,
  throttlingException: 429,
  modelStreamErrorException: 424,
  internalServerException: 500,
  serviceUnavailableException: 503,
};

export function streamExceptionError(exceptionType: string, payload: unknown): UpstreamError {
  const { message } = parseBedrockError(0, payload);
  const status = STREAM_EXCEPTION_STATUS[exceptionType] ?? 502;
  return new UpstreamError(status, `bedrock stream failed with ${exceptionType}: ${message}`, exceptionType);
}
