import type { Logger } from '../../core/logger.js';
import type { RequestLogEntry, RequestLogSink } from '../../core/request-log.js';
import { prepareEntry } from './prepare-entry.js';
import type { LogSpool } from './log-spool.js';

export interface LogWriter {
  insertMany(entries: RequestLogEntry[]): Promise<void>;
  close?(): Promise<void>;
}

export interface BatchingLogSinkOptions {
  /** Entries per write; a full batch is written at once instead of waiting for the timer. */
  batchSize: number;
  /** Longest an entry waits in memory before it is written (the most a hard crash can lose). */
  flushIntervalMs: number;
  /** Queue cap: past it the oldest entries are dropped, counted and warned about. */
  maxQueue: number;
  /** Lower-cased header names whose values are hashed (ORGANISATION_HEADERS_TO_MASK). */
  headersToMask: readonly string[];
  maxBodyBytes: number;
  /** Where entries past the queue cap go instead of being dropped (the data directory); none: dropped. */
  spool?: LogSpool;
  /** Backlog age (oldest entry not written) past which the writer says it is behind: a warning, and /ready fails. 0: never. */
  behindAfterMs?: number;
}

/**
 * Most entries one write takes. A write costs a few round trips and one upsert per rollup row it
 * touches, and a second of traffic touches about as many rollup rows as a tenth of one: so when
 * the queue has grown, one large write drains it far faster than many of batchSize.
 */
const MAX_WRITE_ENTRIES = 5000;

/** Between retries of a failing write while shutting down. */
const CLOSE_RETRY_MS = 200;

/**
 * The request log writer. `record` only pushes onto an in-memory queue (no I/O on the request
 * path); a timer and full batches trigger multi-row inserts, one write at a time. A failed
 * write puts its batch back at the front and is retried on the next tick, within the cap.
 */
export class BatchingLogSink implements RequestLogSink {
  private queue: RequestLogEntry[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly masked: ReadonlySet<string>;
  /** Entries dropped because the queue was full (the database was slower than the traffic). */
  dropped = 0;
  /** Entries written so far. */
  written = 0;
  /** Entries queued so far (the queue is first in, first out: entry n is settled once written + dropped reaches n). */
  private recorded = 0;
  /** Flushes waiting for the entries queued before them. */
  private flushes: Array<{ mark: number; done: () => void }> = [];
  /** Set once close has written the last of the queue: a later entry could not be written. */
  private closed = false;
  private lastDropWarning = 0;
  private lastBehindWarning = 0;

  constructor(
    private readonly writer: LogWriter,
    private readonly options: BatchingLogSinkOptions,
    private readonly logger: Logger,
  ) {
    this.masked = new Set(options.headersToMask.map((name) => name.toLowerCase()));
    // Entries a stop during an outage left on disk: written once this instance is up.
    if (options.spool && !options.spool.isEmpty) this.timer = setTimeout(() => this.kick(), options.flushIntervalMs).unref();
  }

  /** Entries waiting: in memory and in the spool. */
  get pending(): number {
    return this.queue.length + (this.options.spool?.entries ?? 0);
  }

  get spoolBytes(): number {
    return this.options.spool?.bytes ?? 0;
  }

  /** How long the oldest entry not yet written has waited (ms; 0 with none waiting). */
  get backlogAgeMs(): number {
    const oldest = Math.min(this.queue[0]?.created_at ?? Infinity, this.options.spool?.oldestAt ?? Infinity);
    return Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0;
  }

  behind(): boolean {
    const limit = this.options.behindAfterMs ?? 0;
    return limit > 0 && this.backlogAgeMs > limit;
  }

  record(entry: RequestLogEntry): void {
    if (this.closed) {
      this.logger.error({ trace_id: entry.trace_id }, 'request log entry recorded after shutdown: not written');
      return;
    }
    try {
      this.queue.push(prepareEntry(entry, this.masked, this.options.maxBodyBytes));
      this.recorded += 1;
      this.enforceCap();
      if (this.queue.length >= this.options.batchSize) this.kick();
      else this.timer ??= setTimeout(() => this.kick(), this.options.flushIntervalMs).unref();
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : error }, 'request log entry could not be queued');
    }
  }

  /**
   * Writes every entry queued before this call (the log API reads through it, so a request this
   * instance answered is found at once). Entries queued meanwhile do not hold it up, so it ends
   * under steady traffic; a failed write ends it too, leaving the entries to the timer's retries.
   */
  async flush(): Promise<void> {
    const mark = this.recorded;
    if (this.written + this.dropped >= mark) return;
    const done = new Promise<void>((resolve) => this.flushes.push({ mark, done: resolve }));
    this.kick();
    await done;
  }

  /**
   * Shutdown: writes what is queued, retrying a failing store until the deadline, then says how
   * many entries this wrote and how many were not written (none, unless the store stayed down).
   */
  async close(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const writtenBefore = this.written;
    this.clearTimer();
    while (this.writing || this.pending) {
      if (this.writing) await this.writing;
      else if (!(await this.writeBatch())) {
        if (Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(CLOSE_RETRY_MS, Math.max(deadline - Date.now(), 0))));
      }
    }
    this.closed = true;
    // The store stayed down: what is left waits on disk for the next start instead of being lost.
    let spooledAtStop = 0;
    if (this.queue.length && this.options.spool?.write(this.queue)) {
      spooledAtStop = this.queue.length;
      this.queue = [];
    }
    const notWritten = this.queue.length;
    const summary = { written: this.written - writtenBefore, not_written: notWritten, spooled_for_next_start: spooledAtStop, dropped_total: this.dropped };
    if (notWritten > 0 || this.dropped > 0) this.logger.error(summary, 'request log queue not fully written at shutdown');
    else if (spooledAtStop > 0) this.logger.warn(summary, 'request log store unavailable at shutdown: the rest is spooled to the data directory for the next start');
    else this.logger.info(summary, 'request log queue written at shutdown');
    await this.writer.close?.();
  }

  private kick(): void {
    this.clearTimer();
    if (this.writing) return;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
      // A flush that came while this write was ending gets a write of its own at once.
      if (this.flushes.length && this.queue.length) this.kick();
      else if (this.pending) this.timer ??= setTimeout(() => this.kick(), this.options.flushIntervalMs).unref();
    });
  }

  /**
   * Writes full batches back to back, then leaves a partial one to the timer, unless a flush waits
   * for it. Spilled entries are written back to back too: nothing new may come to bring them back.
   */
  private async drain(): Promise<void> {
    do {
      if (!(await this.writeBatch())) return;
    } while (
      this.queue.length >= this.options.batchSize ||
      (this.flushes.length > 0 && this.queue.length > 0) ||
      this.options.spool?.isEmpty === false
    );
  }

  /** Writes one batch; false when it failed (the batch is back in the queue). */
  private async writeBatch(): Promise<boolean> {
    this.refill();
    const batch = this.queue.splice(0, Math.max(this.options.batchSize, MAX_WRITE_ENTRIES));
    if (!batch.length) return true;
    try {
      await this.writer.insertMany(batch);
      this.written += batch.length;
      this.settleFlushes(false);
      this.warnIfBehind();
      return true;
    } catch (error) {
      this.queue.unshift(...batch);
      this.enforceCap();
      this.logger.error({ err: error instanceof Error ? error.message : error, entries: batch.length }, 'request log batch write failed; will retry');
      this.settleFlushes(true);
      this.warnIfBehind();
      return false;
    }
  }

  /** Once the queue has room, the oldest spilled entries come back into it. */
  private refill(): void {
    const spool = this.options.spool;
    while (spool && !spool.isEmpty && this.queue.length < this.options.maxQueue / 2) {
      this.queue.push(...spool.takeOldest()!);
    }
  }

  private warnIfBehind(): void {
    if (!this.behind()) return;
    const now = Date.now();
    if (now - this.lastBehindWarning < 10_000) return;
    this.lastBehindWarning = now;
    this.logger.warn(
      { backlog_age_ms: this.backlogAgeMs, queued: this.queue.length, spool_bytes: this.spoolBytes, dropped_total: this.dropped },
      'request log writer behind: the store is down or slower than the traffic (/ready fails until it catches up)',
    );
  }

  private enforceCap(): void {
    const over = this.queue.length - this.options.maxQueue;
    if (over <= 0) return;
    // Past the cap the newer half goes to disk, in one write; only when the spool is full too are entries dropped.
    const keep = Math.floor(this.options.maxQueue / 2);
    const spill = this.queue.slice(keep);
    if (this.options.spool?.write(spill)) {
      this.queue.length = keep;
      return;
    }
    this.queue.splice(0, over);
    this.dropped += over;
    this.settleFlushes(false);
    const now = Date.now();
    if (now - this.lastDropWarning > 10_000) {
      this.lastDropWarning = now;
      this.logger.warn({ dropped_total: this.dropped, max_queue: this.options.maxQueue }, 'request log queue full: dropped the oldest entries');
    }
  }

  /** Ends the flushes whose entries are all written (or dropped); `all` ends every one (a write failed). */
  private settleFlushes(all: boolean): void {
    if (!this.flushes.length) return;
    const settled = this.written + this.dropped;
    const waiting = this.flushes;
    this.flushes = waiting.filter((flush) => !all && flush.mark > settled);
    for (const flush of waiting) if (all || flush.mark <= settled) flush.done();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
