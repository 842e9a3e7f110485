import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { readCallPhases, timeCalls, type CallPhases } from './call-phases.js';

/** How a bench child process tells the parent it is ready, and on which loopback port. */
export interface ReadyMessage {
  ready: true;
  port: number;
}

/**
 * CPU time this process has used so far, in microseconds, all threads (noise from other processes
 * on the machine does not inflate it), and the time its event loop has been busy (the main thread).
 */
export interface CpuMessage {
  cpuMicros: number;
  loopMicros: number;
  /** Main-thread garbage-collection pauses so far. */
  gcMicros: number;
  /** The longest of them since the previous message, and how many were major (mark-compact) collections. */
  gcMaxMs: number;
  gcMajor: number;
  /** Event-loop delay since the previous message (sampled every ms): how long a ready callback could wait. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Calls timed inside gw since the previous message (scripts/bench/call-phases.ts; zeros when not timing). */
  phases: CallPhases;
}

/** The answer to a settle message; at a counted window's end, what happened in it (scripts/bench-instructions.ts). */
export interface SettledMessage {
  settled: true;
  /** Garbage collections during the window. */
  collections?: number;
  /** Bytes the heap in use grew by during the window: what it allocated, when it held no collection. */
  allocated?: number;
}

export function reportReady(port: number): void {
  if (!process.send) throw new Error('run this file through scripts/bench.ts, which forks it with an IPC channel');
  let gcMillis = 0;
  let gcMaxMs = 0;
  let gcMajor = 0;
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      gcMillis += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
      if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcMajor += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  // Sampling every millisecond costs a timer per millisecond: only `make bench` asks for it, never the
  // instruction count (under callgrind a call takes wall time that varies with the machine's load).
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let window: { profiler: GCProfiler; heapUsed: number } | undefined;
  if (process.env.BENCH_LOOP_DELAY === '1') delay.enable();
  process.on('message', (message: { cpu?: true; timeCalls?: boolean; settle?: true; collect?: true }) => {
    // The instruction count's barrier before and after its window: the work queued before this
    // message is done by the time it is answered. Before the window (collect, with --expose-gc) the
    // heap is also collected, so the window starts on a collected heap; never at its end, where the
    // full GC would be counted. The window's start also starts a GCProfiler, and its end reports how
    // many collections ran in the window (its count repeats only with none) and what it allocated.
    if (message.settle) {
      if (message.collect) {
        (globalThis as { gc?: () => void }).gc?.();
        window = { profiler: new GCProfiler(), heapUsed: getHeapStatistics().used_heap_size };
        window.profiler.start();
        process.send!({ settled: true } satisfies SettledMessage);
      } else {
        const collections = window?.profiler.stop()?.statistics.length;
        const allocated = window && getHeapStatistics().used_heap_size - window.heapUsed;
        window = undefined;
        process.send!({ settled: true, collections, allocated } satisfies SettledMessage);
      }
    }
    if (message.cpu) {
      const { user, system } = process.cpuUsage();
      const loopDelay = { loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6 };
      delay.reset();
      const phases = readCallPhases();
      if (message.timeCalls !== undefined) timeCalls(message.timeCalls);
      process.send!({ cpuMicros: user + system, loopMicros: performance.eventLoopUtilization().active * 1000, gcMicros: gcMillis * 1000, gcMaxMs, gcMajor, ...loopDelay, phases } satisfies CpuMessage);
      gcMaxMs = 0;
      gcMajor = 0;
    }
  });
  process.send({ ready: true, port } satisfies ReadyMessage);
}
