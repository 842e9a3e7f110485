import type { JobsRepository, ClaimedJob } from '../store/repositories/jobs.js';
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

interface Registration {
  handler: JobHandler;
  concurrency: number;
  running: number;
}

interface QueueLogger {
  warn(details: object, message: string): void;
}

/**
 * The embedded engine: jobs are rows in the store's `jobs` table, polled by this process (and woken
 * at once by its own enqueues). Running jobs hold a lease renewed while they run; a job whose
 * instance died is taken again once the lease lapses.
 */
export class StoreJobQueue implements JobQueue {
  readonly engine = 'store' as const;
  private readonly registrations = new Map<string, Registration>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private started = false;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly tuning: JobQueueTuning,
    private readonly logger: QueueLogger,
    private readonly now: () => number = Date.now,
  ) {}

  register<P extends JobPayload>(name: string, handler: JobHandler<P>, options: HandlerOptions = {}): void {
    this.registrations.set(name, { handler: handler as JobHandler, concurrency: options.concurrency ?? DEFAULT_CONCURRENCY, running: 0 });
    if (this.started) this.wake();
  }

  async stopWorking(name: string): Promise<void> {
    this.registrations.delete(name);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.timer = setInterval(() => this.wake(), this.tuning.pollMs);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(10, Math.floor(this.tuning.leaseMs / 3)));
    this.heartbeat.unref();
    this.wake();
  }

  async enqueue(name: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<void> {
    const now = this.now();
    await this.jobs.insert({ name, payload, singletonKey: options.singletonKey, runAt: now + (options.delayMs ?? 0), maxAttempts: JOB_ATTEMPTS, now });
    if (!options.delayMs) this.wake();
  }

  async close(drainMs = 30_000): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    await this.polling;
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), new Promise((resolve) => (deadline = setTimeout(resolve, drainMs)))]);
    clearTimeout(deadline);
    clearInterval(this.heartbeat);
  }

  /** Polls now, or once more right after the poll under way (an enqueue may have come during it). */
  private wake(): void {
    if (!this.started || this.closing) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.poll()
      .catch((error: unknown) => this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'job queue poll failed'))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.wake();
        }
      });
  }

  private async poll(): Promise<void> {
    for (const [name, registration] of this.registrations) {
      const free = registration.concurrency - registration.running;
      if (free <= 0 || this.closing) continue;
      const claimed = await this.jobs.claim([name], free, this.now(), this.tuning.leaseMs);
      for (const job of claimed) this.run(job, registration);
    }
  }

  private run(job: ClaimedJob, registration: Registration): void {
    registration.running += 1;
    const done = registration
      .handler(job.payload, { id: job.id, attempt: job.attempt })
      .then(
        () => this.jobs.complete(job.id),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          this.logger.warn({ job: job.name, id: job.id, attempt: job.attempt, err: message }, 'job failed');
          const retryAt = job.attempt < JOB_ATTEMPTS ? this.now() + backoffMs(job.attempt) : undefined;
          return this.jobs.fail(job.id, message, retryAt, this.now());
        },
      )
      .catch((error: unknown) => this.logger.warn({ job: job.name, id: job.id, err: error instanceof Error ? error.message : String(error) }, 'job state not saved'))
      .finally(() => {
        registration.running -= 1;
        this.inFlight.delete(job.id);
        this.wake();
      });
    this.inFlight.set(job.id, done);
  }

  private async renewLeases(): Promise<void> {
    try {
      await this.jobs.renewLeases([...this.inFlight.keys()], this.now() + this.tuning.leaseMs);
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'job leases not renewed');
    }
  }
}
