import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/**
 * Where a call's time goes inside gw (the latency rows of `make bench`): from the request event to
 * the answer's last byte handed to the kernel, and the part of it gw itself spent, that is without
 * the wait for the upstream's answer headers (undici's diagnostics channels). Set against the added
 * latency the client sees, it tells a tail made in gw's own work or queue from one made outside its
 * JavaScript (socket queues, the scheduler).
 */
export interface CallPhases {
  /** Request event to the answer's end, per call. */
  callP50Ms: number;
  callP99Ms: number;
  /** The same without the upstream's wait (request sent to answer headers). */
  ownP50Ms: number;
  ownP99Ms: number;
  /** From the upstream request's creation to its headers written to the socket (undici's queue). */
  queuedP50Ms: number;
  queuedP99Ms: number;
}

interface Timing {
  upstreamNs: bigint;
  sentAt?: bigint;
}

const current = new AsyncLocalStorage<Timing>();
/** Off except during the latency rows, so the load rows measure gw without the timing's own cost. */
let timing = false;
const byRequest = new WeakMap<object, Timing>();
const call = createHistogram();
const own = createHistogram();
const queued = createHistogram();

/** Wraps gw's request listener so each call is timed (the bench harness only, never gw itself). */
export function timedListener(listener: RequestListener): RequestListener {
  subscribe('undici:request:create', (message) => {
    const timing = current.getStore();
    if (!timing) return;
    timing.sentAt = process.hrtime.bigint();
    byRequest.set((message as { request: object }).request, timing);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const timing = byRequest.get((message as { request: object }).request);
    if (timing?.sentAt !== undefined) record(queued, process.hrtime.bigint() - timing.sentAt);
  });
  subscribe('undici:request:headers', (message) => {
    const timing = byRequest.get((message as { request: object }).request);
    if (timing?.sentAt !== undefined) timing.upstreamNs += process.hrtime.bigint() - timing.sentAt;
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!timing) return listener(req, res);
    const start = process.hrtime.bigint();
    const phases: Timing = { upstreamNs: 0n };
    res.once('finish', () => {
      const total = process.hrtime.bigint() - start;
      record(call, total);
      record(own, total - phases.upstreamNs);
    });
    current.run(phases, () => listener(req, res));
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
  const phases = { callP50Ms: ms(call, 50), callP99Ms: ms(call, 99), ownP50Ms: ms(own, 50), ownP99Ms: ms(own, 99), queuedP50Ms: ms(queued, 50), queuedP99Ms: ms(queued, 99) };
  for (const histogram of [call, own, queued]) histogram.reset();
  return phases;
}
