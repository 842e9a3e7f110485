/**
 * The latency rows of `make bench` (issue 37, item 5): LLM calls are slow and many are in flight at
 * once, which is where a gateway's added latency shows. The same closed-loop load goes straight to
 * a fake upstream that answers after a fixed delay, through a bare Node proxy to it, then through gw
 * to it, each warmed at that concurrency first; the report gives each one's throughput as a share of
 * the direct one and the p50 and p99 it adds. The bare proxy is the floor of a Node hop on this
 * machine at this moment: what gw adds beyond it is gw's own.
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
  proxy: LoadResult;
  gw: LoadResult;
  /** gw's event-loop delay, GC pauses and call phases over its measured run (after the warm-up): stalls that would show in the tail. */
  gwLoop: Pick<CpuMessage, 'loopDelayP99Ms' | 'loopDelayMaxMs' | 'gcMaxMs' | 'gcMajor' | 'phases'> & { gcMs: number };
}

/** One shape: `ports.upstream` answers after `delayMs`; direct first, then the bare proxy, then gw, same load. */
export async function measureDelayed(
  shape: DelayedShape,
  ports: { upstream: number; proxy: number; gw: number },
  adminKey: string,
  timing: { warmupMs: number; durationMs: number },
  gwCpu: (timeCalls?: boolean) => Promise<CpuMessage>,
): Promise<DelayedResult> {
  const load = { body: CHAT_BODY, connections: shape.connections, ...timing };
  const direct = await runLoad({ ...load, url: `http://127.0.0.1:${ports.upstream}/v1/chat/completions`, headers: PLAIN_HEADERS });
  const proxy = await runLoad({ ...load, url: `http://127.0.0.1:${ports.proxy}/v1/chat/completions`, headers: PLAIN_HEADERS });
  // At the warm-up's end gw's event-loop delay histogram and longest GC pause start over, and its calls are timed from then on.
  let warm: Promise<CpuMessage> | undefined;
  const gw = await runLoad({ ...load, url: `http://127.0.0.1:${ports.gw}/v1/chat/completions`, headers: gwHeaders(adminKey, ports.upstream) }, () => {
    warm = gwCpu(true);
  });
  const before = await warm!;
  const after = await gwCpu(false);
  return { ...shape, direct, proxy, gw, gwLoop: { ...after, gcMs: (after.gcMicros - before.gcMicros) / 1000 } };
}

export function reportDelayed(results: DelayedResult[]): void {
  console.log('\nlatency under concurrency: the same load straight to a slow upstream, through a bare Node proxy and through gw');
  const figures = (r: LoadResult) => `${r.requestsPerSecond.toFixed(0)} req/s p50 ${r.p50Ms.toFixed(2)} p99 ${r.p99Ms.toFixed(2)} ms`;
  const added = (r: LoadResult, base: LoadResult) =>
    `throughput ${((100 * r.requestsPerSecond) / base.requestsPerSecond).toFixed(1)}%, added p50 ${(r.p50Ms - base.p50Ms).toFixed(2)} ms, p99 ${(r.p99Ms - base.p99Ms).toFixed(2)} ms`;
  for (const { delayMs, connections, direct, proxy, gw, gwLoop } of results) {
    const failed = Object.keys(gw.statuses).some((status) => !status.startsWith('2')) ? '  (gw answered non-2xx: see statuses)' : '';
    console.log(`  ${connections} conns, upstream answering after ${delayMs} ms: direct ${figures(direct)}; bare proxy ${figures(proxy)}; gw ${figures(gw)}`);
    console.log(`    bare proxy / direct: ${added(proxy, direct)}`);
    console.log(`    gw / direct: ${added(gw, direct)}${failed}`);
    console.log(`    gw / bare proxy: ${added(gw, proxy)}`);
    console.log(
      `    gw event-loop delay p99 ${gwLoop.loopDelayP99Ms.toFixed(2)} ms, max ${gwLoop.loopDelayMaxMs.toFixed(2)} ms; GC pauses ${gwLoop.gcMs.toFixed(0)} ms in all, longest ${gwLoop.gcMaxMs.toFixed(2)} ms, ${gwLoop.gcMajor} major`,
    );
    const { callP50Ms, callP99Ms, ownP50Ms, ownP99Ms, queuedP50Ms, queuedP99Ms } = gwLoop.phases;
    console.log(
      `    inside gw: request to answer p50 ${callP50Ms.toFixed(2)} p99 ${callP99Ms.toFixed(2)} ms; ` +
        (ownP50Ms === undefined ? '' : `without the upstream's wait p50 ${ownP50Ms.toFixed(2)} p99 ${ownP99Ms!.toFixed(2)} ms; `) +
        `upstream request queued in undici p50 ${queuedP50Ms.toFixed(2)} p99 ${queuedP99Ms.toFixed(2)} ms`,
    );
  }
}
