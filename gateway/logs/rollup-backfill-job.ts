import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from '../../core/logger.js';
import { backfillRollups } from '../../store/rollups/backfill.js';

/** Rows per transaction: small, so the log writer (SQLite's one writer above all) waits little. */
const BATCH_SIZE = 1000;
/** At most one progress line this often: a reset at 10 million rows takes minutes. */
const PROGRESS_EVERY_MS = 10_000;
/**
 * While this instance stores imports, the folder waits this many times as long as its last batch
 * took before the next: a quarter of its pace, so the fold of an import's first calls competes
 * less with the rest (a spread import's fold costs several times its COPY, on the same cores and
 * the same event loop), and the fold still moves on under an import that never pauses.
 */
const GIVE_WAY_FACTOR = 3;
/** Imports count as arriving until this long after the last call ended (an importer's next call). */
const IMPORT_QUIET_MS = 250;

/** How long the folder waits after a batch of `batchMs`, with `inFlight` imports and the last one ended `sinceLastMs` ago. */
export function giveWayMs(batchMs: number, inFlight: number, sinceLastMs: number): number {
  return inFlight > 0 || sinceLastMs <= IMPORT_QUIET_MS ? batchMs * GIVE_WAY_FACTOR : 0;
}

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
  private importsInFlight = 0;
  private lastImportEnded = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** An import call is being stored: until the answer is called, and briefly after, the fold gives way to imports. */
  importing(): () => void {
    this.importsInFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.importsInFlight--;
      this.lastImportEnded = performance.now();
    };
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

  private async giveWay(batchMs: number): Promise<void> {
    const wait = giveWayMs(batchMs, this.importsInFlight, performance.now() - this.lastImportEnded);
    // Stopping cuts the wait short (the loop then ends after it).
    if (wait) await sleep(wait, undefined, { signal: this.stopping.signal }).catch(() => undefined);
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
        afterBatch: (batchMs) => this.giveWay(batchMs),
      });
      if (progress.done) this.logger.info({ rows: progress.done }, 'older request logs counted into the analytics rollups');
    } catch (error) {
      // Analytics stay exact without it (raw rows are read); the next start goes on from here.
      if (!this.stopping.signal.aborted) this.logger.error({ err: error instanceof Error ? error.message : error }, 'rollup backfill failed');
    }
  }
}
