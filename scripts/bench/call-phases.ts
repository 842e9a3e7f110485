import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/**
 * Where a call's time goes inside gw (the latency rows of `make bench`): from the request event to
 * the answer's last byte handed to the kernel, and how long each upstream request sat in undici
 * before its headers were written. Set against the added latency the client sees, they tell a
 * tail made in gw from one made outside its JavaScript (socket queues, the scheduler).
 *
 * gw's own part of a call (the same without the wait for the upstream's answer headers) needs each
 * upstream request tied to its call, which only AsyncLocalStorage does; on Node 20 that puts a
 * hook on every promise gw makes and slows the very calls it times (docs/performance.md), so it is
 * measured only with BENCH_OWN_WORK=1.
 */
export interface CallPhases {
  /** Request event to the answer's end, per call. */
  callP50Ms: number;
  callP99Ms: number;
  /** The same without the upstream's wait (request sent to answer headers); undefined unless BENCH_OWN_WORK=1. */
  ownP50Ms?: number;
  ownP99Ms?: number;
  /** From the upstream request's creation to its headers written to the socket (undici's queue). */
  queuedP50Ms: number;
  queuedP99Ms: number;
}

interface Timing {
  upstreamNs: bigint;
}

const OWN_WORK = process.env.BENCH_OWN_WORK === '1';
const current = OWN_WORK ? new AsyncLocalStorage<Timing>() : undefined;
/** Off except during the latency rows, so the load rows measure gw without the timing's own cost. */
let timing = false;
const createdAt = new WeakMap<object, bigint>();
const byRequest = new WeakMap<object, Timing>();
const call = createHistogram();
const own = createHistogram();
const queued = createHistogram();

/** Wraps gw's request listener so each call is timed (the bench harness only, never gw itself). */
export function timedListener(listener: RequestListener): RequestListener {
  subscribe('undici:request:create', (message) => {
    if (!timing) return;
    const { request } = message as { request: object };
    createdAt.set(request, process.hrtime.bigint());
    const phases = current?.getStore();
    if (phases) byRequest.set(request, phases);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const created = createdAt.get((message as { request: object }).request);
    if (created !== undefined) record(queued, process.hrtime.bigint() - created);
  });
  subscribe('undici:request:headers', (message) => {
    const { request } = message as { request: object };
    const phases = byRequest.get(request);
    const created = createdAt.get(request);
    if (phases && created !== undefined) phases.upstreamNs += process.hrtime.bigint() - created;
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!timing) return listener(req, res);
    const start = process.hrtime.bigint();
    const phases: Timing = { upstreamNs: 0n };
    res.once('finish', () => {
      const total = process.hrtime.bigint() - start;
      record(call, total);
      if (current) record(own, total - phases.upstreamNs);
    });
    return current ? current.run(phases, () => listener(req, res)) : listener(req, res);
  };
}

function record(histogram: RecordableHistogram, ns: bigint): void {
  histogram.record(ns > 0n ? ns : 1n);
}

export function timeCalls(on: boolean): void {
  timing = on;
}

/** The figures since the previous read, then starts over. */
export function readCallPhases(): CallPhases {
  const ms = (histogram: RecordableHistogram, p: number) => (histogram.count ? histogram.percentile(p) / 1e6 : 0);
  const phases: CallPhases = { callP50Ms: ms(call, 50), callP99Ms: ms(call, 99), queuedP50Ms: ms(queued, 50), queuedP99Ms: ms(queued, 99) };
  if (current) Object.assign(phases, { ownP50Ms: ms(own, 50), ownP99Ms: ms(own, 99) });
  for (const histogram of [call, own, queued]) histogram.reset();
  return phases;
}
