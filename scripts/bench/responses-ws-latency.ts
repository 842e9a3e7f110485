/**
 * The Responses WebSocket row of `make bench`: sequential streamed Responses calls through gw, each
 * as a `POST /v1/responses` with `stream: true` and as a `response.create` message on one open
 * socket (the official SDK's ResponsesWS). Both run the same pipeline against the same upstream, so
 * the difference is what the socket saves (or costs) per response: no request per turn, one JSON
 * message per event instead of server-sent events.
 */
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import type { LatencyResult } from './mcp-latency.js';

const REQUEST = { model: 'gpt-4o-mini', input: 'Say hello.', store: false } as const;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(call: () => Promise<void>, warmup: number, calls: number): Promise<LatencyResult> {
  for (let i = 0; i < warmup; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { calls, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/** One response on the socket: sent, then every event read up to the one that ends it. */
function overSocket(ws: ResponsesWS): () => Promise<void> {
  let ended: ((failure?: Error) => void) | undefined;
  ws.on('event', (event) => {
    if (event.type === 'response.completed') ended?.();
    else if (event.type === 'error' || event.type === 'response.failed') ended?.(new Error(`bench: response failed: ${JSON.stringify(event)}`));
  });
  ws.on('error', () => undefined);
  return () =>
    new Promise<void>((resolve, reject) => {
      ended = (failure) => (failure ? reject(failure) : resolve());
      ws.send({ type: 'response.create', ...REQUEST } as never);
    });
}

export async function measureResponsesWs(gwUrl: string, headers: Record<string, string>, options: { warmup: number; calls: number }): Promise<{ http: LatencyResult; socket: LatencyResult }> {
  const client = new OpenAI({ apiKey: 'sk-bench', baseURL: `${gwUrl}/v1`, maxRetries: 0, defaultHeaders: headers });
  const http = await timed(
    async () => {
      const stream = await client.responses.create({ ...REQUEST, stream: true });
      for await (const event of stream) if (event.type === 'response.failed') throw new Error('bench: response failed');
    },
    options.warmup,
    options.calls,
  );
  const ws = new ResponsesWS(client, { headers });
  try {
    const socket = await timed(overSocket(ws), options.warmup, options.calls);
    return { http, socket };
  } finally {
    ws.close({ code: 1000, reason: 'bench done' });
  }
}

export function reportResponsesWs({ http, socket }: { http: LatencyResult; socket: LatencyResult }): void {
  console.log(`\nResponses through gw, streamed, sequential, ${socket.calls} calls each`);
  console.log(`  POST /v1/responses (SSE):   p50 ${http.p50Ms.toFixed(3)} ms  p99 ${http.p99Ms.toFixed(3)} ms`);
  console.log(`  response.create on a socket: p50 ${socket.p50Ms.toFixed(3)} ms  p99 ${socket.p99Ms.toFixed(3)} ms`);
  console.log(`  socket minus HTTP:           p50 ${(socket.p50Ms - http.p50Ms).toFixed(3)} ms  p99 ${(socket.p99Ms - http.p99Ms).toFixed(3)} ms`);
}
