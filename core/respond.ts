import type { ServerResponse } from 'node:http';
import { JsonText } from './json-text.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A body already in JSON (an upstream's embeddings answer, forwarded as it came) is sent as it is.
  const payload = body === undefined ? '' : body instanceof JsonText ? (body.bytes ?? body.text) : JSON.stringify(body);
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
