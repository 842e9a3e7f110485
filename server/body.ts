import type { IncomingMessage } from 'node:http';
import { ApiError, ValidationError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * Reads the request body once and parses it as JSON (the only body type gw takes).
 * An empty body is undefined; the spec decides whether one was required.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (declared === '0' || (declared === undefined && req.headers['transfer-encoding'] === undefined)) return undefined;

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const contentType = req.headers['content-type'] ?? '';
  if (!JSON_TYPE.test(contentType)) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the request body as application/json', 'invalid_request_error', {
      param: 'content-type',
    });
  }
  const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes`, 'invalid_request_error');
}
