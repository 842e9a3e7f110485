import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../core/logger.js';
import type { LogExportRecord } from '../../store/repositories/log-exports.js';
import type { Store } from '../../store/store.js';
import { toLogFilter } from './log-filter-input.js';
import { pickFields, presentLog } from './present-log.js';

export interface LogExportRunnerOptions {
  /** Where export files live (config.dataDir/exports). */
  dir: string;
  /** Rows read and written per step; progress is checkpointed after each. */
  pageSize?: number;
  /** This instance's name on the leases it holds; a fresh id per process by default. */
  owner?: string;
  /** How long a lease holds without renewal: how soon another instance takes over after a crash. */
  leaseMs?: number;
  /** How often held leases are renewed; well under leaseMs. */
  renewMs?: number;
  /** How often to look for exports no instance holds (started elsewhere, or their holder died). */
  sweepMs?: number;
}

/**
 * Runs log exports in the background of this process: pages through the matching logs oldest
 * first, appends JSON lines to `<dir>/<id>.jsonl` and checkpoints (keyset cursor, bytes written,
 * rows) in log_exports after every page. A cancel is seen at the next page. On start, exports
 * left in_progress by a stop or crash are resumed: the file is cut back to the last checkpoint
 * and writing goes on from its cursor, so no row is lost or written twice. An export whose file
 * lost checkpointed rows (removed, or GW_DATA_DIR not shared between instances) fails with that reason.
 *
 * Several instances may share one database, so an export runs only under a lease: claimed
 * atomically in log_exports, renewed on every page and on a timer, released at the end. A lease
 * left by a crashed instance lapses after leaseMs and the next sweep of any instance takes over.
 */
export class LogExportRunner {
  private readonly active = new Map<string, Promise<void>>();
  private readonly owner: string;
  private timers: NodeJS.Timeout[] = [];
  private closing = false;

  constructor(
    private readonly store: Store,
    private readonly options: LogExportRunnerOptions,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {
    this.owner = options.owner ?? randomUUID();
  }

  filePath(id: string): string {
    return path.join(this.options.dir, `${id}.jsonl`);
  }

  /** Starts processing an in_progress export unless it already runs here. */
  run(id: string): void {
    if (this.closing || this.active.has(id)) return;
    const job = this.runLeased(id)
      .catch((error: unknown) => this.logger.error({ export_id: id, err: error instanceof Error ? error.message : error }, 'log export lease bookkeeping failed'))
      .finally(() => this.active.delete(id));
    this.active.set(id, job);
  }

  /** Boot: resumes exports no instance holds, then keeps sweeping for them and renewing held leases. */
  async start(): Promise<void> {
    await this.sweep();
    if (this.closing || this.timers.length) return;
    const quietly = (work: () => Promise<void>) => () =>
      void work().catch((error: unknown) => this.logger.error({ err: error instanceof Error ? error.message : error }, 'log export sweep failed'));
    this.timers = [
      setInterval(quietly(() => this.sweep()), this.options.sweepMs ?? 15_000).unref(),
      setInterval(quietly(() => this.renewLeases()), this.options.renewMs ?? 10_000).unref(),
    ];
  }

  /** Starts every export in progress whose lease is free or lapsed (the claim decides who runs it). */
  async sweep(): Promise<void> {
    if (this.closing) return;
    for (const id of await this.store.logExports.idsUnleased(this.iso())) this.run(id);
  }

  /** Keeps the leases of exports running here alive, also while one page takes long. */
  async renewLeases(): Promise<void> {
    await Promise.all([...this.active.keys()].map((id) => this.store.logExports.renewLease(id, this.owner, this.leaseEnd())));
  }

  /** Resolves when no export is being processed (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.all(this.active.values());
  }

  /** Stops after the current page; unfinished exports stay in_progress, their leases released for any instance to resume. */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.idle();
  }

  async removeFile(id: string): Promise<void> {
    await rm(this.filePath(id), { force: true });
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  private leaseEnd(): string {
    return new Date(this.now() + (this.options.leaseMs ?? 30_000)).toISOString();
  }

  /** Runs the export only if this instance wins its lease, and gives the lease back when done or stopped. */
  private async runLeased(id: string): Promise<void> {
    if (!(await this.store.logExports.claimLease(id, this.owner, this.iso(), this.leaseEnd()))) return;
    try {
      await this.process(id);
    } catch (error) {
      await this.fail(id, error);
    } finally {
      await this.store.logExports.releaseLease(id, this.owner);
    }
  }

  private async process(id: string): Promise<void> {
    const found = await this.store.logExports.getById(id);
    if (!found || found.status !== 'in_progress') return;
    let record = found;
    const filter = toLogFilter(record.organisation_id, record.workspace_id ?? undefined, record.filters);
    const file = this.filePath(id);
    await mkdir(this.options.dir, { recursive: true });
    const size = existsSync(file) ? (await stat(file)).size : 0;
    // Rows already checkpointed are not in the file any more (it was removed or cut): resuming would
    // silently skip them, so the export fails and says why.
    if (size < record.bytes_written) {
      throw new Error(`The export file holds ${size} of the ${record.bytes_written} bytes already written (removed or cut since); start a new export`);
    }
    // Lines past the last checkpoint were written but not recorded: drop them before going on.
    if (existsSync(file)) await truncate(file, record.bytes_written);
    else await writeFile(file, '');
    const pageSize = this.options.pageSize ?? 1000;
    while (!this.closing) {
      const rows = await this.store.requestLogs.pageAscending(filter, record.resume_cursor, pageSize);
      if (!rows.length) {
        await this.store.logExports.finishLeased(id, this.owner, 'success', { finished_at: this.iso() }, this.iso());
        return;
      }
      const text = rows.map((row) => JSON.stringify(pickFields(presentLog(row), record.requested_fields)) + '\n').join('');
      // Renew before writing: a cancel, a delete or a lost lease since the last page stops the export here.
      if (!(await this.store.logExports.renewLease(id, this.owner, this.leaseEnd()))) return;
      await appendFile(file, text);
      const last = rows[rows.length - 1]!;
      const progress: Pick<LogExportRecord, 'resume_cursor' | 'bytes_written' | 'processed_rows'> = {
        resume_cursor: [last.created_at, last.id],
        bytes_written: record.bytes_written + Buffer.byteLength(text),
        processed_rows: record.processed_rows + rows.length,
      };
      if (!(await this.store.logExports.checkpoint(id, this.owner, progress, this.leaseEnd(), this.iso()))) return;
      record = { ...record, ...progress };
    }
  }

  private async fail(id: string, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.error({ export_id: id, err: message }, 'log export failed');
    await this.store.logExports
      .finishLeased(id, this.owner, 'failed', { error: { code: 'export_failed', message }, finished_at: this.iso() }, this.iso())
      .catch(() => undefined);
  }
}
