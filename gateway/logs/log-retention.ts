import type { Logger } from '../../core/logger.js';
import type { Store } from '../../store/store.js';

const DAY_MS = 86_400_000;

export interface LogRetentionOptions {
  /** 0 keeps logs forever. */
  retentionDays: number;
  /** Stored Responses API responses ride the same hourly pass with their own window; 0 or absent keeps them forever. */
  responsesRetentionDays?: number;
  /** Rows per DELETE: each statement holds its locks only this long. */
  batchSize?: number;
  /** How often the job runs in the background. */
  intervalMs?: number;
}

/**
 * Deletes request logs and feedback older than the retention window, in small batches by
 * created_at (indexed), so the log table is never locked by one long delete and the writer
 * keeps inserting between batches. Stored responses expire in the same pass, by their own window.
 */
export class LogRetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: LogRetentionOptions,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if ((this.options.retentionDays <= 0 && !this.options.responsesRetentionDays) || this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.intervalMs ?? 3_600_000).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One pass; answers the number of log rows deleted. Overlapping calls share the pass in flight. */
  runOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<number> {
    const batch = this.options.batchSize ?? 1000;
    const responsesDays = this.options.responsesRetentionDays ?? 0;
    const cutoff = this.now() - this.options.retentionDays * DAY_MS;
    let deleted = 0;
    try {
      if (responsesDays > 0) {
        const responsesCutoff = this.now() - responsesDays * DAY_MS;
        for (let n = batch; n === batch; ) n = await this.store.responses.deleteOlderThan(responsesCutoff, batch);
      }
      if (this.options.retentionDays <= 0) return 0;
      for (let n = batch; n === batch; deleted += n) n = await this.store.requestLogs.deleteOlderThan(cutoff, batch);
      for (let n = batch; n === batch; ) n = await this.store.logFeedback.deleteOlderThan(cutoff, batch);
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : error }, 'log retention pass failed');
      throw error;
    }
    if (deleted) this.logger.info({ deleted, cutoff: new Date(cutoff).toISOString() }, 'log retention removed old request logs');
    return deleted;
  }
}
