import type { IncomingMessage } from 'node:http';
import { ApiError, ValidationError } from './errors.js';

export const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
/** OAuth token requests and HTML form posts (RFC 6749 section 4.1.3; the consent form). */
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;
/** File uploads: left unread for the operation's handler, which streams them (gateway/files/multipart-upload.ts). */
export const MULTIPART_TYPE = /^multipart\/form-data\b/i;

/** Largest request body gw reads into memory (images and files travel inline as base64; signed pass-through bodies). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads the request body once and parses it as JSON (or, for OAuth and form posts, as a URL-encoded form).
 * An empty body is undefined; the spec decides whether one was required.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (MULTIPART_TYPE.test(req.headers['content-type'] ?? '')) return undefined;
  const raw = await readBodyBytes(req, maxBytes);
  if (raw.length === 0) return undefined;
  const contentType = req.headers['content-type'] ?? '';
  if (FORM_TYPE.test(contentType)) return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  if (!JSON_TYPE.test(contentType)) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the request body as application/json', 'invalid_request_error', {
      param: 'content-type',
    });
  }
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
}

/** The whole request body as bytes (empty when there is none); 413 `payload_too_large` over maxBytes. */
export function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  if (declared === '0' || (declared === undefined && req.headers['transfer-encoding'] === undefined)) return Promise.resolve(EMPTY);
  return readRaw(req, maxBytes);
}

const EMPTY = Buffer.alloc(0);

/** Event listeners rather than `for await`: the async iterator costs a few microseconds per request on the hot path. */
function readRaw(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge(maxBytes));
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

function tooLarge(maxBytes: number): ApiError {
  // The rest of the body is discarded unread, so the connection cannot carry another request.
  return new ApiError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes`, 'invalid_request_error', {
    headers: { connection: 'close' },
  });
}
