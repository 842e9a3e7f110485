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

interface QueueLogger {
  warn(details: object, message: string): void;
}

interface Registration {
  handler: JobHandler;
  concurrency: number;
  running: number;
}

// pg-boss keys a singleton per queue policy, and its `short` policy (one waiting job per key) would
// also collide keyless jobs, so each name has two pg-boss queues: plain, and one for keyed jobs.
const SINGLE_SUFFIX = '__single';

/**
 * The Postgres engine: pg-boss, in its own schema of gw's database. A job's lease is pg-boss's
 * expiry (`started_on + expire_in`), kept short and pushed forward by a heartbeat while the
 * handler runs, so a job may run as long as it needs while its instance lives, and a dead
 * instance's job is failed by pg-boss's maintenance and retried within seconds of its last beat.
 * That is why jobs are fetched, completed and failed here rather than by pg-boss's `work`, which
 * ends any handler that runs past the expiry.
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
  private readonly registrations = new Map<string, Registration>();
  /** Jobs running here, by id: the pg-boss queue each came from. */
  private readonly inFlight = new Map<string, { queue: string; done: Promise<void> }>();
  private started: Promise<void> | undefined;
  private working = false;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;

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
      // Expired jobs (their instance stopped beating) are failed for a retry by pg-boss's maintenance: look as often as the lease allows.
      maintenanceIntervalSeconds: Math.max(1, Math.min(120, Math.floor(tuning.leaseMs / 3000))),
    });
    this.boss.on('error', (error: Error) => this.logger.warn({ err: error.message }, 'pg-boss error'));
  }

  register<P extends JobPayload>(name: string, handler: JobHandler<P>, options: HandlerOptions = {}): void {
    this.registrations.set(name, { handler: handler as JobHandler, concurrency: options.concurrency ?? DEFAULT_CONCURRENCY, running: 0 });
    if (this.working) {
      void this.queuesOf(name)
        .then(() => this.wake())
        .catch((error: unknown) => this.logger.warn({ err: String(error), job: name }, 'pg-boss queue not created'));
    }
  }

  start(): Promise<void> {
    this.started ??= this.begin();
    return this.started;
  }

  private async begin(): Promise<void> {
    await this.boss.start();
    for (const name of this.registrations.keys()) await this.queuesOf(name);
    if (this.closing) return;
    this.working = true;
    this.timer = setInterval(() => this.wake(), this.tuning.pollMs);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(10, Math.floor(this.tuning.leaseMs / 3)));
    this.heartbeat.unref();
    this.wake();
  }

  async enqueue(name: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<void> {
    await this.start();
    const queue = options.singletonKey ? name + SINGLE_SUFFIX : name;
    await this.ensureQueue(queue);
    await this.boss.send(queue, payload, {
      singletonKey: options.singletonKey,
      startAfter: options.delayMs ? new Date(Date.now() + options.delayMs) : undefined,
    });
    if (!options.delayMs) this.wake();
  }

  async stopWorking(name: string): Promise<void> {
    // Jobs of the name running here finish on their own (and keep beating until then).
    this.registrations.delete(name);
  }

  async close(drainMs = 30_000): Promise<void> {
    if (!this.started) return;
    this.closing = true;
    clearInterval(this.timer);
    await this.polling;
    let deadline: NodeJS.Timeout | undefined;
    const running = [...this.inFlight.values()].map((job) => job.done);
    await Promise.race([Promise.allSettled(running), new Promise((resolve) => (deadline = setTimeout(resolve, drainMs)))]);
    clearTimeout(deadline);
    // A job still running stops beating here: another instance retries it once its lease lapses.
    clearInterval(this.heartbeat);
    await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: false, wait: true });
  }

  private async queuesOf(name: string): Promise<void> {
    for (const queue of [name, name + SINGLE_SUFFIX]) await this.ensureQueue(queue);
  }

  private ensureQueue(queue: string): Promise<void> {
    let created = this.queues.get(queue);
    if (!created) {
      const settings = {
        policy: (queue.endsWith(SINGLE_SUFFIX) ? 'short' : 'standard') as PgBoss.QueuePolicy,
        retryLimit: JOB_ATTEMPTS - 1,
        retryDelay: Math.ceil(backoffMs(1) / 1000),
        retryBackoff: true,
        // A job's first lease, until its first heartbeat.
        expireInSeconds: this.leaseSeconds(),
      };
      // One creation at a time, here and across instances: pg-boss creates each queue's table with DDL, and two at once can deadlock.
      // The update brings a queue an earlier release made to today's lease.
      created = this.creating.then(() =>
        this.serialise(async () => {
          await this.boss.createQueue(queue, { name: queue, ...settings });
          await this.boss.updateQueue(queue, { name: queue, ...settings });
        }),
      );
      this.creating = created.catch(() => undefined);
      this.queues.set(queue, created);
      created.catch(() => this.queues.delete(queue));
    }
    return created;
  }

  private leaseSeconds(): number {
    return Math.max(1, Math.ceil(this.tuning.leaseMs / 1000));
  }

  /** Polls now, or once more right after the poll under way (a job may have come during it). */
  private wake(): void {
    if (!this.working || this.closing) return;
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
      for (const queue of [name, name + SINGLE_SUFFIX]) {
        // One slot pool per name across both of its queues: concurrency holds however the jobs were sent.
        const free = registration.concurrency - registration.running;
        if (free <= 0 || this.closing) break;
        await this.ensureQueue(queue);
        const jobs = await this.boss.fetch<JobPayload>(queue, { batchSize: free, includeMetadata: true });
        for (const job of jobs) this.run(queue, job, registration);
      }
    }
  }

  private run(queue: string, job: PgBoss.JobWithMetadata<JobPayload>, registration: Registration): void {
    registration.running += 1;
    const done = Promise.resolve()
      .then(() => registration.handler(job.data, { id: job.id, attempt: job.retryCount + 1 }))
      .then(
        () => this.boss.complete(queue, job.id),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          this.logger.warn({ job: queue, id: job.id, attempt: job.retryCount + 1, err: message }, 'job failed');
          return this.boss.fail(queue, job.id, { message });
        },
      )
      .then(
        () => undefined,
        (error: unknown) => this.logger.warn({ job: queue, id: job.id, err: error instanceof Error ? error.message : String(error) }, 'job state not saved'),
      )
      .finally(() => {
        registration.running -= 1;
        this.inFlight.delete(job.id);
        this.wake();
      });
    this.inFlight.set(job.id, { queue, done });
  }

  /** The heartbeat: every job running here gets a lease of leaseMs from now. */
  private async renewLeases(): Promise<void> {
    const byQueue = new Map<string, string[]>();
    for (const [id, { queue }] of this.inFlight) byQueue.set(queue, [...(byQueue.get(queue) ?? []), id]);
    for (const [queue, ids] of byQueue) {
      try {
        const result = (await this.boss.getDb().executeSql(
          `UPDATE ${this.schema}.job SET expire_in = (now() - started_on) + make_interval(secs => $3)
           WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
          [queue, ids, this.leaseSeconds()],
        )) as { rowCount?: number | null };
        // Jobs that ended meanwhile are no longer active: only those still running here count as lost.
        const held = ids.filter((id) => this.inFlight.has(id)).length;
        if ((result.rowCount ?? held) < held) this.logger.warn({ job: queue, held, renewed: result.rowCount }, 'job leases lost: another instance may run those jobs again');
      } catch (error) {
        this.logger.warn({ job: queue, err: error instanceof Error ? error.message : String(error) }, 'job leases not renewed');
      }
    }
  }
}
