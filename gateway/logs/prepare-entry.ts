import { sha256Hex } from '../../server/sha256.js';
import type { RequestLogEntry } from '../request-log.js';
import { JsonText } from '../../store/json-column.js';

/** Prefix of a header value already replaced by its hash, so masking twice changes nothing. */
const HASHED = 'sha256:';

function hashValue(value: string): string {
  return value.startsWith(HASHED) ? value : HASHED + sha256Hex(value);
}

/**
 * Hashes the values of masked headers (case-insensitive names). The gateway already hashes
 * headers the request named sensitive; this applies the organisation-wide list again at the
 * writer so no path that builds an entry can store them in clear.
 */
export function maskHeaders(headers: Record<string, string>, masked: ReadonlySet<string>): Record<string, string> {
  if (!masked.size) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = masked.has(name.toLowerCase()) ? hashValue(String(value)) : value;
  return out;
}

/**
 * Bodies above the cap are stored as a marker with their size and a text preview, so one huge
 * prompt cannot blow up a batch or the table. A body within it keeps the JSON text measured here.
 */
export function capBody(body: unknown, maxBytes: number): unknown {
  if (body === null || body === undefined) return null;
  const text = JSON.stringify(body);
  if (text === undefined) return null;
  // UTF-8 needs at most 3 bytes per UTF-16 unit: short texts need no exact count.
  const bytes = text.length * 3 <= maxBytes ? text.length : Buffer.byteLength(text);
  if (bytes <= maxBytes) return new JsonText(text);
  return { gw_truncated: true, bytes, preview: text.slice(0, Math.min(4096, maxBytes)) };
}

export function prepareEntry(entry: RequestLogEntry, masked: ReadonlySet<string>, maxBodyBytes: number): RequestLogEntry {
  return {
    ...entry,
    request_headers: maskHeaders(entry.request_headers ?? {}, masked),
    request_body: capBody(entry.request_body, maxBodyBytes),
    response_body: capBody(entry.response_body, maxBodyBytes),
  };
}
