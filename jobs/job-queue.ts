/**
 * The one worker room's contract: background work (batches, runs, ingestion, exports) is a named
 * job with a JSON payload, handled by whichever instance has a handler registered for that name.
 * Two engines implement it (docs/workers.md): pg-boss on Postgres and an in-process runner over the store's `jobs` table. Rooms depend on this file only.
 */

export type JobPayload = { [key: string]: unknown };

export interface EnqueueOptions {
  /**
   * At most one job with this name and key waits to run; enqueueing another while one waits is a
   * no-op. Two jobs with the same key never run at once (a second may wait while one runs).
   */
  singletonKey?: string;
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
}

export interface JobContext {
  id: string;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
}

/** Throwing fails the attempt: the job is retried with backoff until JOB_ATTEMPTS runs have failed. */
export type JobHandler<P extends JobPayload = JobPayload> = (payload: P, job: JobContext) => Promise<void>;

export interface HandlerOptions {
  /** Jobs of this name this process runs at once (default 2). */
  concurrency?: number;
}

export type JobEngine = 'pg-boss' | 'store';

export interface JobQueue {
  readonly engine: JobEngine;
  /** Handles jobs of `name` in this process; registering after start begins work at once. */
  register<P extends JobPayload>(name: string, handler: JobHandler<P>, options?: HandlerOptions): void;
  /** Starts the workers of every name registered so far. */
  start(): Promise<void>;
  enqueue(name: string, payload: JobPayload, options?: EnqueueOptions): Promise<void>;
  /** Stops taking jobs of `name` here (a room shutting down); jobs already running go on, other instances take the rest. */
  stopWorking(name: string): Promise<void>;
  /**
   * Stops taking jobs, waits up to `drainMs` for the ones running to finish, then disconnects.
   * A job still running at the deadline is retried by some instance once its lease lapses.
   */
  close(drainMs?: number): Promise<void>;
}

/** Runs per job before it is given up (the first run included); retries back off exponentially from RETRY_BASE_MS. */
export const JOB_ATTEMPTS = 5;
export const RETRY_BASE_MS = 1000;
export const DEFAULT_CONCURRENCY = 2;

export interface JobQueueTuning {
  /**
   * How long a running job may go without its instance before another instance retries it. pg-boss
   * also ends a handler that runs longer than this, so long work splits into continuation jobs.
   */
  leaseMs: number;
  /** How often an idle worker looks for due jobs (the in-process and pg-boss engines poll). */
  pollMs: number;
}

export function backoffMs(attempt: number): number {
  return RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1);
}
