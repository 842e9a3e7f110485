import PgBoss from 'pg-boss';
import {
  backoffMs,
  DEFAULT_CONCURRENCY,
  JOB_ATTEMPTS,
  type EnqueueOptions,
  type HandlerOptions,
  type JobHandler,
  type JobPayload,
  type JobQueue,
  type JobQueueTuning,
} from './job-queue.js';
import { Slots } from './slots.js';

interface QueueLogger {
  warn(details: object, message: string): void;
}

// pg-boss keys a singleton per queue policy, and its `short` policy (one waiting job per key) would
// also collide keyless jobs, so each name has two pg-boss queues: plain, and one for keyed jobs.
const SINGLE_SUFFIX = '__single';

/**
 * The Postgres engine: pg-boss, in its own schema of gw's database. pg-boss fails a job whose
 * handler runs past the lease (expireIn) and retries it, so the lease bounds a handler's run.
 */
export class PgBossJobQueue implements JobQueue {
  readonly engine = 'pg-boss' as const;
  /** Where its tables live. */
  readonly schema: string;
  private readonly boss: PgBoss;
  private readonly serialise: <T>(work: () => Promise<T>) => Promise<T>;
  private readonly queues = new Map<string, Promise<void>>();
  /** The last queue creation asked for; the next waits for it. */
  private creating: Promise<unknown> = Promise.resolve();
  private readonly registrations = new Map<string, { handler: JobHandler; concurrency: number }>();
  private readonly working = new Set<string>();
  private started: Promise<unknown> | undefined;

  constructor(
    options: {
      connectionString: string;
      schema: string;
      /** Runs a queue's creation while no other instance creates one (DDL: two at once deadlock). */
      serialise?: <T>(work: () => Promise<T>) => Promise<T>;
    },
    private readonly tuning: JobQueueTuning,
    private readonly logger: QueueLogger,
  ) {
    this.schema = options.schema;
    this.serialise = options.serialise ?? ((work) => work());
    this.boss = new PgBoss({
      connectionString: options.connectionString,
      schema: options.schema,
      max: 4,
      // Expired (orphaned) jobs are found by pg-boss's maintenance; check as often as the lease allows.
      maintenanceIntervalSeconds: Math.max(1, Math.min(120, Math.floor(tuning.leaseMs / 2000))),
    });
    this.boss.on('error', (error: Error) => this.logger.warn({ err: error.message }, 'pg-boss error'));
  }

  register<P extends JobPayload>(name: string, handler: JobHandler<P>, options: HandlerOptions = {}): void {
    this.registrations.set(name, { handler: handler as JobHandler, concurrency: options.concurrency ?? DEFAULT_CONCURRENCY });
    if (this.started) void this.started.then(() => this.work(name)).catch((error: unknown) => this.logger.warn({ err: String(error), job: name }, 'pg-boss worker not started'));
  }

  async start(): Promise<void> {
    this.started ??= this.boss.start();
    await this.started;
    for (const name of this.registrations.keys()) await this.work(name);
  }

  async enqueue(name: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<void> {
    await this.start();
    const queue = options.singletonKey ? name + SINGLE_SUFFIX : name;
    await this.ensureQueue(queue);
    await this.boss.send(queue, payload, {
      singletonKey: options.singletonKey,
      startAfter: options.delayMs ? new Date(Date.now() + options.delayMs) : undefined,
    });
  }

  async stopWorking(name: string): Promise<void> {
    this.registrations.delete(name);
    if (!this.working.delete(name)) return;
    // offWork stops fetching and returns; a handler running finishes on its own.
    for (const queue of [name, name + SINGLE_SUFFIX]) await this.boss.offWork(queue);
  }

  async close(drainMs = 30_000): Promise<void> {
    if (!this.started) return;
    await this.started.catch(() => undefined);
    // Graceful: workers stop fetching, running handlers get until the timeout, then pg-boss fails them for a retry.
    await this.boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, drainMs) });
  }

  private ensureQueue(queue: string): Promise<void> {
    let created = this.queues.get(queue);
    if (!created) {
      // One creation at a time, here and across instances: pg-boss creates each queue's table with DDL, and two at once can deadlock.
      created = this.creating.then(() =>
        this.serialise(() =>
          this.boss.createQueue(queue, {
            name: queue,
            policy: queue.endsWith(SINGLE_SUFFIX) ? 'short' : 'standard',
            retryLimit: JOB_ATTEMPTS - 1,
            retryDelay: Math.ceil(backoffMs(1) / 1000),
            retryBackoff: true,
            expireInSeconds: Math.max(1, Math.ceil(this.tuning.leaseMs / 1000)),
          }),
        ),
      );
      this.creating = created.catch(() => undefined);
      this.queues.set(queue, created);
      created.catch(() => this.queues.delete(queue));
    }
    return created;
  }

  private async work(name: string): Promise<void> {
    if (this.working.has(name)) return;
    this.working.add(name);
    const registration = this.registrations.get(name);
    if (!registration) return;
    // One slot pool per name across both of its queues: concurrency holds however the jobs were sent.
    const slots = new Slots(registration.concurrency);
    for (const queue of [name, name + SINGLE_SUFFIX]) {
      await this.ensureQueue(queue);
      for (let i = 0; i < registration.concurrency; i += 1) {
        await this.boss.work<JobPayload>(
          queue,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: Math.max(0.5, this.tuning.pollMs / 1000) },
          async (jobs) => {
            for (const job of jobs) {
              await slots.run(() => registration.handler(job.data, { id: job.id, attempt: job.retryCount + 1 }));
            }
          },
        );
      }
    }
  }
}
