/**
 * The bound on what gw reads from a server someone else runs (MCP servers, webhooks, identity
 * providers, secret managers, token endpoints, custom provider hosts): GW_MAX_UPSTREAM_ANSWER_BYTES.
 * A declared length past it fails before any byte is read; otherwise the bytes are counted as they
 * arrive and reading stops at the bound, so one huge or endless answer costs at most that much memory.
 */
import { UpstreamError } from '../../core/errors.js';

export class AnswerTooLargeError extends UpstreamError {
  constructor(
    readonly limit: number,
    where: string,
  ) {
    super(502, `${where} answered more than ${limit} bytes, the most gw reads from another server (GW_MAX_UPSTREAM_ANSWER_BYTES)`, 'upstream_answer_too_large');
  }
}

/** Where an answer came from, for the error: the origin only (a path or query may carry a secret). */
export function answerSource(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'The server';
  }
}

function declaredLength(value: string | string[] | null | undefined): number {
  return Number(Array.isArray(value) ? value[0] : (value ?? undefined));
}

/** A fetch answer whose body fails with AnswerTooLargeError past `maxBytes` (the consumer's json(), text() or reader sees it). */
export async function capAnswer(response: Response, maxBytes: number, where: string): Promise<Response> {
  if (!response.body) return response;
  if (declaredLength(response.headers.get('content-length')) > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(maxBytes, where);
  }
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new AnswerTooLargeError(maxBytes, where));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** What readCappedBody reads: a Node stream (undici's response body). */
interface BodyStream {
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  destroy(error?: Error): unknown;
}

/**
 * A provider answer's whole body (undici's request API), read up to `maxBytes`; past it the rest is
 * dropped unread. Event listeners rather than `for await`: every chat call to a custom host reads
 * its answer here, and the async iterator costs more than the rest of the read.
 */
export function readCappedBody(body: BodyStream, headers: Record<string, string | string[] | undefined>, maxBytes: number, where: string): Promise<Buffer> {
  if (declaredLength(headers['content-length']) > maxBytes) {
    body.destroy();
    return Promise.reject(new AnswerTooLargeError(maxBytes, where));
  }
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let seen = 0;
    let settled = false;
    const onData = (chunk: Uint8Array) => {
      seen += chunk.byteLength;
      if (seen <= maxBytes) return void parts.push(chunk);
      body.off('data', onData);
      settled = true;
      body.destroy();
      reject(new AnswerTooLargeError(maxBytes, where));
    };
    body.on('data', onData);
    body.once('end', () => {
      settled = true;
      resolve(parts.length === 1 && Buffer.isBuffer(parts[0]) ? parts[0] : Buffer.concat(parts, seen));
    });
    body.once('error', (error) => {
      settled = true;
      reject(error);
    });
    // Closed without an end or an error. Every answer closes after its end: the error (its stack
    // trace is most of its cost) is built only when nothing settled the read first.
    body.once('close', () => {
      if (!settled) reject(new UpstreamError(502, `${where} closed its answer before the end`, 'upstream_unreachable'));
    });
  });
}

/** A streamed answer relayed as it arrives, failing with AnswerTooLargeError once more than `maxBytes` have come (an endless stream would otherwise grow what gw keeps of it). */
export async function* cappedStream(body: AsyncIterable<Uint8Array>, maxBytes: number, where: string): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.byteLength;
    if (seen > maxBytes) throw new AnswerTooLargeError(maxBytes, where);
    yield chunk;
  }
}
