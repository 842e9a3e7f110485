import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JsonText, jsonTextOf } from './json-text.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A body already in JSON (an upstream's embeddings answer, forwarded as it came) is sent as it is.
  // An answer its log row serialised already is not serialised again.
  const payload = body === undefined ? '' : body instanceof JsonText ? (body.bytes ?? body.text) : typeof body === 'object' && body !== null ? jsonTextOf(body) : JSON.stringify(body);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  if (payload && !res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(payload);
}

/** A page (the OAuth consent form): the body is sent as it is, with the content type the handler set. */
export function sendText(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Sends a stream as the answer, status and headers already set: waits on the socket when it is
 * full; a client that goes away ends the source (a file read, a query) at once and the handler
 * returns; a source that fails is rethrown after the connection is cut, so the client sees a broken
 * answer rather than a short one that looks whole, and the dispatcher logs the error.
 */
export async function sendStream(res: ServerResponse, source: Readable | AsyncIterable<Uint8Array | string>): Promise<void> {
  try {
    await pipeline(source, res);
  } catch (error) {
    // The client closed the connection first: nothing is wrong on this side.
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' && !res.writableFinished) return;
    throw error;
  }
}
