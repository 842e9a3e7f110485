import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import { AnswerTooLargeError } from '../outbound/answer-cap.js';

export type RequestId = string | number;

/** The ids of the requests in a JSON-RPC POST body (notifications and responses carry none to wait for). */
function requestIdsOf(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: { id?: unknown; method?: unknown }) =>
      message && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [],
    );
  } catch {
    return [];
  }
}

export interface AnswerWatchEvents {
  /** A POST's answer stream ended without answering this request. */
  unanswered(id: RequestId): void;
  /** An answer went past GW_MAX_UPSTREAM_ANSWER_BYTES: every request still waiting on this connection fails with it. */
  tooLarge(id: RequestId, error: AnswerTooLargeError): void;
}

/** Reads `data:` lines of an SSE stream as they pass, reporting the ids of the answers they carry. */
function sseAnswerScanner(onAnswer: (id: RequestId) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let buffered = '';
  return (chunk) => {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      try {
        const message = JSON.parse(line.slice(5)) as { id?: RequestId; result?: unknown; error?: unknown };
        if (message.id !== undefined && ('result' in message || 'error' in message)) onAnswer(message.id);
      } catch {
        // Not JSON: the SDK reports it.
      }
    }
  };
}

/**
 * Watches the answers of one connection to an MCP server as the SDK's client reads them, for two
 * things the SDK does not do:
 * - A server that ends the SSE stream of a POST without answering (a server going away closes its
 *   streams cleanly) leaves the SDK waiting for the timeout; the requests it did not answer are
 *   reported once it ends, so the caller can fail them at once.
 * - An answer past GW_MAX_UPSTREAM_ANSWER_BYTES fails its stream (the guarded fetch bounds every
 *   body); the SDK would report a lost connection, so the requests still waiting are failed with
 *   that error instead, whichever stream (a POST's, or the SSE transport's one GET stream) carried it.
 */
export function watchAnswerStreams(fetch: GuardedFetch, events: AnswerWatchEvents): GuardedFetch {
  const waiting = new Set<RequestId>();
  const failAll = (error: AnswerTooLargeError) => {
    const ids = [...waiting];
    waiting.clear();
    for (const id of ids) events.tooLarge(id, error);
  };
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const ids = init?.method === 'POST' ? requestIdsOf(init.body) : [];
    for (const id of ids) waiting.add(id);
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (error instanceof AnswerTooLargeError) queueMicrotask(() => failAll(error));
      throw error;
    }
    if (!response.body) return response;
    const contentType = response.headers.get('content-type') ?? '';
    const streamed = contentType.includes('text/event-stream');
    // The SSE transport's POSTs are only accepted: their answers come on its GET stream, and wait there.
    const answered = contentType.includes('application/json');
    // Requests of this POST its stream has not answered yet.
    const open = new Set<RequestId>(ids);
    const scan = streamed
      ? sseAnswerScanner((id) => {
          open.delete(id);
          waiting.delete(id);
        })
      : undefined;
    const reader = response.body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          controller.error(error);
          if (error instanceof AnswerTooLargeError) failAll(error);
          return;
        }
        if (read.done) {
          controller.close();
          if (answered) {
            // A JSON answer, read whole: the SDK takes it from here.
            for (const id of ids) waiting.delete(id);
          }
          if (!streamed) return;
          // After the SDK has handled the last event.
          setImmediate(() => {
            for (const id of open) {
              waiting.delete(id);
              events.unanswered(id);
            }
          });
          return;
        }
        scan?.(read.value);
        controller.enqueue(read.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
  }) as GuardedFetch;
}
