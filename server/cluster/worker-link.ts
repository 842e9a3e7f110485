/**
 * A worker's side of GW_WORKERS without Redis: the state that must have one owner (limit counters,
 * the response cache, invalidations, the SQLite log writer) lives in the primary process, and this
 * worker reaches it over IPC. With Redis, workers use Redis as separate instances do.
 */
import cluster from 'node:cluster';
import type { RequestListener } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { CounterStore, ReserveResult } from '../../gateway/limits/counter-store.js';
import type { CacheBackend } from '../../gateway/cache/cache-backend.js';
import { LocalInvalidationBus } from '../../core/invalidation.js';
import type { LogWriteOptions } from '../../store/log-batch-write.js';
import { isClusterMessage, type CallMessage, type ClusterMessage } from './messages.js';

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

export class PrimaryLink {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  readonly bus = new WorkerBus(this);

  constructor() {
    process.on('message', (message: unknown) => {
      if (!isClusterMessage(message)) return;
      if (message.gw === 'bus') this.bus.heard(message.topic, message.id);
      else if (message.gw === 'reply') this.settle(message);
    });
  }

  call<T>(op: string, ...args: unknown[]): Promise<T> {
    const id = (this.nextId += 1);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ gw: 'call', id, op, args } satisfies CallMessage);
    });
  }

  send(message: ClusterMessage): void {
    process.send?.(message);
  }

  private settle(message: Extract<ClusterMessage, { gw: 'reply' }>): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.value);
  }

  counters(): CounterStore {
    return {
      reserve: (...args) => this.call<ReserveResult>('counters.reserve', ...args),
      settle: (...args) => this.call<void>('counters.settle', ...args),
      read: (...args) => this.call<number[]>('counters.read', ...args),
      members: (...args) => this.call<string[]>('counters.members', ...args),
      remove: (...args) => this.call<void>('counters.remove', ...args),
    };
  }

  cache(): CacheBackend {
    return {
      get: (...args) => this.call<string | undefined>('cache.get', ...args),
      set: (...args) => this.call<void>('cache.set', ...args),
    };
  }

  /** The primary's one SQLite log writer thread: this worker's rows are written there. */
  logThread(): { writeLogs(rows: Record<string, unknown>[], options: LogWriteOptions): Promise<void>; close(): Promise<void> } {
    return { writeLogs: (rows, options) => this.call<void>('logs.write', rows, options), close: async () => undefined };
  }

  /** The registry this worker answers the primary's metrics requests with (prom-client's aggregator listens once one exists). */
  shareMetrics(registry: Registry): void {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }

  /** /metrics: every worker's registry, merged by the primary (prom-client's AggregatorRegistry). */
  clusterMetrics(): Promise<string> {
    return this.call<string>('metrics');
  }
}

/** Local listeners at once (as in one process), then the other workers through the primary. */
class WorkerBus extends LocalInvalidationBus {
  constructor(private readonly link: PrimaryLink) {
    super();
  }

  override async publish(topic: string, id: string): Promise<void> {
    this.deliver(topic, id);
    this.link.send({ gw: 'bus', topic, id });
  }

  heard(topic: string, id: string): void {
    this.deliver(topic, id);
  }
}

/** Every response of a worker names it (`x-gw-worker`, node:cluster's worker number): which worker a connection landed on. */
export function answeredByWorker(listener: RequestListener): RequestListener {
  const id = String(cluster.worker?.id ?? 0);
  return (req, res) => {
    res.setHeader('x-gw-worker', id);
    listener(req, res);
  };
}
