import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import {
  DEFAULT_CONCURRENCY,
  JOB_ATTEMPTS,
  RETRY_BASE_MS,
  type EnqueueOptions,
  type HandlerOptions,
  type JobHandler,
  type JobPayload,
  type JobQueue,
  type JobQueueTuning,
} from './job-queue.js';

interface QueueLogger {
  warn(details: object, message: string): void;
}

/**
 * The Redis engine: one BullMQ queue and worker per job name, keys under gw's Redis prefix. A job
 * whose worker died is found stalled once its lock (the lease) lapses and is run again.
 */
export class BullMqJobQueue implements JobQueue {
  readonly engine = 'bullmq' as const;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private readonly registrations = new Map<string, { handler: JobHandler; concurrency: number }>();
  private started = false;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly options: { redisUrl: string; prefix: string },
    private readonly tuning: JobQueueTuning,
    private readonly logger: QueueLogger,
  ) {}

  // Workers block on Redis, so each gets its own connection (BullMQ requires maxRetriesPerRequest null).
  private connection(): ConnectionOptions {
    return { url: this.options.redisUrl, maxRetriesPerRequest: null };
  }

  register<P extends JobPayload>(name: string, handler: JobHandler<P>, options: HandlerOptions = {}): void {
    this.registrations.set(name, { handler: handler as JobHandler, concurrency: options.concurrency ?? DEFAULT_CONCURRENCY });
    if (this.started) this.work(name);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const name of this.registrations.keys()) this.work(name);
  }

  async enqueue(name: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<void> {
    await this.queue(name).add(name, payload, {
      attempts: JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: RETRY_BASE_MS },
      delay: options.delayMs,
      removeOnComplete: true,
      removeOnFail: 1000,
      // keepLastIfActive: one job waits per key, and it waits for the running one to finish.
      deduplication: options.singletonKey ? { id: `${name}:${options.singletonKey}`, keepLastIfActive: true } : undefined,
    });
  }

  async close(drainMs = 30_000): Promise<void> {
    // Stop fetching, give the jobs in hand until the deadline, then close without waiting: a job still
    // running keeps its lock until the lease lapses and then stalls over to another instance.
    await Promise.allSettled([...this.workers.values()].map((worker) => worker.pause(true)));
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => (deadline = setTimeout(resolve, drainMs)))]);
    clearTimeout(deadline);
    await Promise.allSettled([...this.workers.values()].map((worker) => worker.close(true)));
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection(), prefix: this.prefix() });
      queue.on('error', (error: Error) => this.logger.warn({ err: error.message, job: name }, 'bullmq queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private prefix(): string {
    return `${this.options.prefix}jobs`;
  }

  private work(name: string): void {
    const registration = this.registrations.get(name);
    if (!registration || this.workers.has(name)) return;
    const worker = new Worker(
      name,
      async (job) => {
        const run = registration.handler(job.data as JobPayload, { id: String(job.id), attempt: job.attemptsMade + 1 });
        this.running.add(run);
        try {
          await run;
        } finally {
          this.running.delete(run);
        }
      },
      {
      connection: this.connection(),
      prefix: this.prefix(),
      concurrency: registration.concurrency,
      lockDuration: this.tuning.leaseMs,
      stalledInterval: Math.max(1000, Math.floor(this.tuning.leaseMs / 2)),
      maxStalledCount: JOB_ATTEMPTS,
      },
    );
    worker.on('error', (error: Error) => this.logger.warn({ err: error.message, job: name }, 'bullmq worker error'));
    worker.on('failed', (job, error: Error) => this.logger.warn({ job: name, id: job?.id, attempt: job?.attemptsMade, err: error.message }, 'job failed'));
    this.workers.set(name, worker);
  }
}
