import { RequestSecrets } from '../../core/redaction.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { JsonText, jsonTextOf } from '../../core/json-text.js';

/**
 * Bodies above the cap are stored as a marker with their size and a text preview, so one huge
 * prompt cannot blow up a batch or the table. A body within it keeps the JSON text measured here.
 * The text is serialised once, and the request's secrets are masked in it before anything is kept.
 */
export function capBody(body: unknown, maxBytes: number, secrets?: RequestSecrets): unknown {
  if (body === null || body === undefined) return null;
  // An object's text is kept for the answer to the client, which is the same object (core/respond.ts).
  let text: string | undefined = body instanceof JsonText ? body.text : typeof body === 'object' ? jsonTextOf(body) : JSON.stringify(body);
  if (text === undefined) return null;
  if (secrets && !secrets.empty) text = secrets.text(text);
  // UTF-8 needs at most 3 bytes per UTF-16 unit: short texts need no exact count.
  const bytes = text.length * 3 <= maxBytes ? text.length : Buffer.byteLength(text);
  if (bytes <= maxBytes) return new JsonText(text);
  return { gw_truncated: true, bytes, preview: text.slice(0, Math.min(4096, maxBytes)) };
}

/**
 * Every log row passes through here (gateway requests through the batching sink, custom logs
 * through their handler): the request's secrets are masked in its headers, and scrubbed from
 * its bodies, its error and its route (core/redaction.ts), and the bodies are capped.
 */
export function prepareEntry(entry: RequestLogEntry, masked: ReadonlySet<string>, maxBodyBytes: number): RequestLogEntry {
  const secrets = new RequestSecrets(entry.request_headers ?? {}, masked);
  const scrub = secrets.empty ? undefined : secrets;
  return {
    ...entry,
    request_headers: secrets.headers(),
    request_body: capBody(entry.request_body, maxBodyBytes, scrub),
    response_body: capBody(entry.response_body, maxBodyBytes, scrub),
    error: entry.error && scrub ? { ...entry.error, message: scrub.text(entry.error.message) } : entry.error,
    route: scrub ? entry.route.map((step) => (step.error === undefined ? step : { ...step, error: scrub.text(step.error) })) : entry.route,
    guardrail_results: entry.guardrail_results && scrub ? (scrub.strings(entry.guardrail_results) as unknown[]) : entry.guardrail_results,
  };
}
