/**
 * GW_WORKERS > 1: this process serves nothing itself. It starts one gw worker per core on the
 * shared port (node:cluster), replaces a worker that dies while the others go on serving, and on
 * SIGTERM passes the signal to every worker and exits once they all drained (docs/operations.md,
 * "Several workers"). Without Redis it owns what must have one owner: the limit counters, the
 * response cache, the relay of invalidations, and on SQLite the one log writer thread.
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';
import { MemoryCounterStore } from '../../gateway/limits/memory-counter-store.js';
import { MemoryCacheBackend } from '../../gateway/cache/memory-cache-backend.js';
import { SqliteWriterThread } from '../../store/sqlite-writer-thread.js';
import { isClusterMessage, type CallMessage } from './messages.js';

/** A worker that dies this soon after it started is started again only after this pause (a crash loop). */
const RESPAWN_PAUSE_MS = 1000;

/** State a single gw process keeps in memory, held here so every worker sees the same. */
class OwnedState {
  private readonly counters = new MemoryCounterStore(Date.now);
  private readonly cache: MemoryCacheBackend;
  private logThread: SqliteWriterThread | undefined;

  constructor(private readonly config: Readonly<Config>) {
    this.cache = new MemoryCacheBackend(config.cacheMemoryMaxBytes, Date.now);
  }

  async call(op: string, args: unknown[], aggregator: { clusterMetrics(): Promise<string> }): Promise<unknown> {
    const a = args as [never, never, never, never, never];
    switch (op) {
      case 'counters.reserve': return this.counters.reserve(a[0], a[1], a[2], a[3], a[4]);
      case 'counters.settle': return this.counters.settle(a[0], a[1]);
      case 'counters.read': return this.counters.read(a[0]);
      case 'counters.members': return this.counters.members(a[0]);
      case 'counters.remove': return this.counters.remove(a[0]);
      case 'cache.get': return this.cache.get(a[0]);
      case 'cache.set': return this.cache.set(a[0], a[1], a[2]);
      // Opened on the first write: by then the first worker has migrated the file.
      case 'logs.write': return (this.logThread ??= new SqliteWriterThread(path.join(this.config.dataDir, 'gw.sqlite'))).writeLogs(a[0], a[1]);
      case 'metrics': return aggregator.clusterMetrics();
      default: throw new Error(`unknown cluster call ${op}`);
    }
  }

  close(): Promise<void> {
    return this.logThread?.close() ?? Promise.resolve();
  }
}

export async function runPrimary(config: Readonly<Config>, logger: Logger): Promise<void> {
  cluster.setupPrimary({ serialization: 'advanced' });
  const state = new OwnedState(config);
  const aggregator = new AggregatorRegistry();
  const startedAt = new Map<Worker, number>();
  let stopping: string | undefined;

  const answer = (worker: Worker, message: CallMessage) => {
    state.call(message.op, message.args, aggregator).then(
      (value) => worker.isConnected() && worker.send({ gw: 'reply', id: message.id, value }),
      (error: unknown) => worker.isConnected() && worker.send({ gw: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  };
  const start = (): Worker => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => {
      if (!isClusterMessage(message)) return;
      if (message.gw === 'call') answer(worker, message);
      // An invalidation: the publisher already applied it; every other worker hears it.
      else if (message.gw === 'bus') for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker && other.isConnected()) other.send(message);
    });
    return worker;
  };

  // The first worker migrates the store and makes the first start's organisation and key alone; the others start once it listens.
  const first = start();
  const firstListening = await new Promise<boolean>((resolve) => {
    first.once('listening', () => resolve(true));
    first.once('exit', () => resolve(false));
  });
  if (!firstListening) {
    logger.error('gw: the first worker stopped before it listened');
    process.exit(1);
  }
  const others = Array.from({ length: config.workers - 1 }, () => start());
  void Promise.all(others.map((worker) => new Promise((resolve) => worker.once('listening', resolve)))).then(() =>
    logger.info({ workers: config.workers, pid: process.pid }, 'gw primary: every worker listening'),
  );

  const allExited = new Promise<void>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const livedMs = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
        return;
      }
      logger.warn({ worker: worker.process.pid, code, signal }, 'gw worker stopped: starting another');
      setTimeout(() => { if (!stopping) start(); }, livedMs < RESPAWN_PAUSE_MS ? RESPAWN_PAUSE_MS : 0);
    });
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = signal;
    logger.info({ signal }, 'gw primary: stopping every worker');
    // Each worker runs the stop sequence of a single gw (server/shutdown.ts): grace, drain, log queue written.
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    const done = Object.keys(cluster.workers ?? {}).length === 0 ? Promise.resolve() : allExited;
    void done.then(() => state.close()).then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
