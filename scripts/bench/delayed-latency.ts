/**
 * The latency rows of `make bench` (issue 37, item 5): LLM calls are slow and many are in flight at
 * once, which is where a gateway's added latency shows. The same closed-loop load goes straight to
 * a fake upstream that answers after a fixed delay, then through gw to it, each warmed at that
 * concurrency first; the report gives gw's throughput as a share of the direct one and the p50 and
 * p99 gw adds.
 */
import type { CpuMessage } from './child-ipc.js';
import type { LoadResult } from './load-generator.js';
import { CHAT_BODY, PLAIN_HEADERS, gwHeaders, runLoad } from './processes.js';

export interface DelayedShape {
  delayMs: number;
  connections: number;
}

export interface DelayedResult extends DelayedShape {
  direct: LoadResult;
  gw: LoadResult;
  /** gw's event-loop delay over its run (warm-up included): stalls that would show in the tail. */
  gwLoop: Pick<CpuMessage, 'loopDelayP99Ms' | 'loopDelayMaxMs'>;
}

/** One shape: `upstreamPort` answers after `delayMs`; direct first, then through gw, same load. */
export async function measureDelayed(
  shape: DelayedShape,
  upstreamPort: number,
  gwPort: number,
  adminKey: string,
  timing: { warmupMs: number; durationMs: number },
  gwCpu: () => Promise<CpuMessage>,
): Promise<DelayedResult> {
  const load = { body: CHAT_BODY, connections: shape.connections, ...timing };
  const direct = await runLoad({ ...load, url: `http://127.0.0.1:${upstreamPort}/v1/chat/completions`, headers: PLAIN_HEADERS });
  await gwCpu(); // resets gw's event-loop delay histogram
  const gw = await runLoad({ ...load, url: `http://127.0.0.1:${gwPort}/v1/chat/completions`, headers: gwHeaders(adminKey, upstreamPort) });
  return { ...shape, direct, gw, gwLoop: await gwCpu() };
}

export function reportDelayed(results: DelayedResult[]): void {
  console.log('\nlatency under concurrency: the same load straight to a slow upstream and through gw');
  for (const { delayMs, connections, direct, gw, gwLoop } of results) {
    const failed = Object.keys(gw.statuses).some((status) => !status.startsWith('2')) ? '  (gw answered non-2xx: see statuses)' : '';
    console.log(
      `  ${connections} conns, upstream answering after ${delayMs} ms: direct ${direct.requestsPerSecond.toFixed(0)} req/s p50 ${direct.p50Ms.toFixed(2)} p99 ${direct.p99Ms.toFixed(2)} ms;` +
        ` gw ${gw.requestsPerSecond.toFixed(0)} req/s p50 ${gw.p50Ms.toFixed(2)} p99 ${gw.p99Ms.toFixed(2)} ms`,
    );
    console.log(
      `    gw / direct throughput ${((100 * gw.requestsPerSecond) / direct.requestsPerSecond).toFixed(1)}%, added p50 ${(gw.p50Ms - direct.p50Ms).toFixed(2)} ms, p99 ${(gw.p99Ms - direct.p99Ms).toFixed(2)} ms${failed};` +
        ` gw event-loop delay p99 ${gwLoop.loopDelayP99Ms.toFixed(2)} ms, max ${gwLoop.loopDelayMaxMs.toFixed(2)} ms`,
    );
  }
}
