import type { Knex } from 'knex';
import type { Logger } from '../../core/logger.js';
import { backfillRollups } from '../../store/rollups/backfill.js';

/** Rows per transaction: small, so the log writer (SQLite's one writer above all) waits little. */
const BATCH_SIZE = 1000;
/** At most one progress line this often: a reset at 10 million rows takes minutes. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * Counts the log rows not yet in the analytics rollups: once at startup (after a migration that
 * recounts them, resetRollups, or an upgrade from before them), and again whenever woken by an
 * import (POST /v1/logs stores its rows not rolled up, so an import spread over months folds a
 * thousand rows at a time, per bucket, instead of upserting a few dozen rollup rows per log row
 * while the caller waits). Analytics are exact meanwhile, reading those rows raw. Several
 * instances may run it at once (each batch claims its own rows: store/rollups/backfill.ts);
 * scripts/backfill-rollups.ts does the same by hand.
 */
export class RollupBackfillJob {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  /** Woken while a pass runs: one more pass follows, for rows that pass may have missed. */
  private again = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Rows were stored not rolled up: count them now (or after the pass in flight). */
  wake(): void {
    if (this.stopping.signal.aborted) return;
    if (this.running) this.again = true;
    else this.start();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.run();
      } while (this.again && !this.stopping.signal.aborted);
    } finally {
      this.running = undefined;
    }
  }

  /** Stops after the batch in flight; what it counted stays counted. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** Settles when the passes end (done, stopped or failed). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    let lastProgress = performance.now();
    try {
      const progress = await backfillRollups(this.db, {
        batchSize: BATCH_SIZE,
        signal: this.stopping.signal,
        onProgress: ({ done, total }) => {
          if (performance.now() - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = performance.now();
          this.logger.info({ done, total }, 'counting older request logs into the analytics rollups');
        },
      });
      if (progress.done) this.logger.info({ rows: progress.done }, 'older request logs counted into the analytics rollups');
    } catch (error) {
      // Analytics stay exact without it (raw rows are read); the next start goes on from here.
      if (!this.stopping.signal.aborted) this.logger.error({ err: error instanceof Error ? error.message : error }, 'rollup backfill failed');
    }
  }
}
