import type { GuardedFetch } from '../outbound/guarded-fetch.js';

type RequestId = string | number;

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

/**
 * The MCP SDK's client waits for an answer that will never come when a server ends the SSE stream
 * of a POST without answering (a server going away closes its streams cleanly) and offers no
 * resumption. This fetch watches each POST's answer stream and, once it ends, reports the request
 * ids it did not answer, so the caller can fail them at once instead of at the timeout.
 */
export function watchAnswerStreams(fetch: GuardedFetch, onUnanswered: (id: RequestId) => void): GuardedFetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    const ids = init?.method === 'POST' ? requestIdsOf(init.body) : [];
    if (!ids.length || !response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
    const waiting = new Set<RequestId>(ids);
    const decoder = new TextDecoder();
    let buffered = '';
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, end).trim();
          buffered = buffered.slice(end + 1);
          if (!line.startsWith('data:')) continue;
          try {
            const message = JSON.parse(line.slice(5)) as { id?: RequestId; result?: unknown; error?: unknown };
            if (message.id !== undefined && ('result' in message || 'error' in message)) waiting.delete(message.id);
          } catch {
            // Not JSON: the SDK reports it.
          }
        }
      },
      flush() {
        // After the SDK has handled the last event.
        setImmediate(() => waiting.forEach(onUnanswered));
      },
    });
    return new Response(response.body.pipeThrough(watch), { status: response.status, statusText: response.statusText, headers: response.headers });
  }) as GuardedFetch;
}
