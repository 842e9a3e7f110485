import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { afterKeyset } from '../pagination.js';

export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

export const UNFINISHED_BATCH_STATUSES: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling'];

export interface BatchRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  internal_output_file_id: string | null;
  errors: Array<{ code: string; message: string; param: string | null; line: number | null }> | null;
  metadata: Record<string, string> | null;
  total: number;
  completed: number;
  failed: number;
  principal: string;
  sealed_headers: string;
  /** `native`: the provider's own batch API runs the file; gw mirrors it (gateway/batches/native-batch.ts). */
  batch_mode: 'gateway' | 'native';
  provider_input_file_id: string | null;
  provider_batch_id: string | null;
  created_at: number;
  expires_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
}

export interface ClaimedLine {
  line: number;
  custom_id: string | null;
  request: string;
  claim: string;
}

const TIME_COLUMNS = ['created_at', 'expires_at', 'in_progress_at', 'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at'] as const;

function toRecord(row: Record<string, unknown>): BatchRecord {
  const record = { ...row } as unknown as BatchRecord & Record<string, unknown>;
  for (const column of TIME_COLUMNS) (record as Record<string, unknown>)[column] = row[column] === null || row[column] === undefined ? null : Number(row[column]);
  record.total = Number(row.total);
  record.completed = Number(row.completed);
  record.failed = Number(row.failed);
  record.errors = fromJson(row.errors, null);
  record.metadata = fromJson(row.metadata, null);
  return record;
}

/** Batches and their lines (migration 207). Line claims are conditional updates: one result per line. */
export class BatchesRepository {
  constructor(private readonly db: Knex) {}

  async insert(record: BatchRecord): Promise<void> {
    await this.db('batches').insert({ ...record, errors: toJson(record.errors), metadata: toJson(record.metadata) });
  }

  async get(workspaceId: string, id: string): Promise<BatchRecord | undefined> {
    const row = await this.db('batches').where({ id, workspace_id: workspaceId }).first();
    return row ? toRecord(row) : undefined;
  }

  async getById(id: string): Promise<BatchRecord | undefined> {
    const row = await this.db('batches').where({ id }).first();
    return row ? toRecord(row) : undefined;
  }

  async list(workspaceId: string, limit: number, after?: string): Promise<{ data: BatchRecord[]; hasMore: boolean }> {
    const query = this.db('batches').where('workspace_id', workspaceId);
    if (after) {
      const anchor = await this.db('batches').where({ id: after, workspace_id: workspaceId }).first('created_at', 'id');
      if (anchor) afterKeyset(query, '<', 'created_at', anchor.created_at, 'id', anchor.id);
    }
    const rows: Array<Record<string, unknown>> = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
    return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
  }

  /** Updates when the batch is in one of `from` (any state when omitted); false when it was not. */
  async update(id: string, patch: Partial<BatchRecord>, from?: readonly BatchStatus[]): Promise<boolean> {
    const values: Record<string, unknown> = { ...patch };
    if ('errors' in patch) values.errors = toJson(patch.errors);
    if ('metadata' in patch) values.metadata = toJson(patch.metadata);
    const query = this.db('batches').where({ id });
    if (from) query.whereIn('status', from);
    return (await query.update(values)) > 0;
  }

  async unfinishedIds(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db('batches').whereIn('status', UNFINISHED_BATCH_STATUSES).select('id');
    return rows.map((row) => row.id);
  }

  /** Lines are imported in slices; a slice already there (an import cut short by a restart) is skipped. */
  async insertLines(rows: Array<{ batch_id: string; line: number; custom_id: string | null; request: string; status: 'pending' | 'failed'; result?: string; succeeded?: boolean }>): Promise<void> {
    if (rows.length === 0) return;
    await this.db('batch_lines')
      .insert(rows.map((row) => ({ result: null, succeeded: null, ...row })))
      .onConflict(['batch_id', 'line'])
      .ignore();
  }

  async lineCounts(batchId: string): Promise<{ total: number; failed: number; completed: number }> {
    const rows: Array<{ status: string; succeeded: unknown; n: number | string }> = await this.db('batch_lines').where('batch_id', batchId).groupBy('status', 'succeeded').select('status', 'succeeded').count({ n: '*' });
    let total = 0;
    let failed = 0;
    let completed = 0;
    for (const row of rows) {
      const n = Number(row.n);
      total += n;
      if (row.status === 'done' && (row.succeeded === true || row.succeeded === 1)) completed += n;
      else if (row.status === 'done' || row.status === 'failed') failed += n;
    }
    return { total, failed, completed };
  }

  /** Takes up to `limit` lines that are due: waiting ones, and running ones whose runner's lease lapsed. */
  async claimLines(batchId: string, limit: number, now: number, leaseMs: number): Promise<ClaimedLine[]> {
    const due = (q: Knex.QueryBuilder) =>
      q
        .where((w) => w.where('status', 'pending').andWhere((n) => n.whereNull('not_before').orWhere('not_before', '<=', now)))
        .orWhere((w) => w.where('status', 'running').andWhere('lease_until', '<', now));
    const candidates: Array<{ line: number }> = await this.db('batch_lines').where('batch_id', batchId).andWhere(due).orderBy('line').limit(limit).select('line');
    if (candidates.length === 0) return [];
    const claim = randomUUID();
    await this.db('batch_lines')
      .where('batch_id', batchId)
      .whereIn(
        'line',
        candidates.map((row) => row.line),
      )
      .andWhere(due)
      .update({ status: 'running', claim, lease_until: now + leaseMs });
    const rows: Array<{ line: number; custom_id: string | null; request: string }> = await this.db('batch_lines').where({ batch_id: batchId, claim }).orderBy('line').select('line', 'custom_id', 'request');
    return rows.map((row) => ({ ...row, line: Number(row.line), claim }));
  }

  async renewClaims(batchId: string, claims: readonly string[], leaseUntil: number): Promise<void> {
    if (claims.length === 0) return;
    await this.db('batch_lines').where('batch_id', batchId).whereIn('claim', claims).andWhere('status', 'running').update({ lease_until: leaseUntil });
  }

  /**
   * Records a line's result if this runner still holds its claim, and counts it on the batch in the
   * same transaction. False when another runner took the line over (its result is the one kept).
   */
  async finishLine(batchId: string, line: number, claim: string, result: string, succeeded: boolean): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('batch_lines').where({ batch_id: batchId, line, claim, status: 'running' }).update({ status: 'done', result, succeeded, lease_until: null });
      if (updated !== 1) return false;
      await trx('batches')
        .where({ id: batchId })
        .increment(succeeded ? 'completed' : 'failed', 1);
      return true;
    });
  }

  /** Fails every line still waiting with the result `resultOf` gives it (an expired batch), counting them on the batch. */
  async failPending(batchId: string, resultOf: (customId: string | null) => string): Promise<void> {
    for (;;) {
      const rows: Array<{ line: number; custom_id: string | null }> = await this.db('batch_lines').where({ batch_id: batchId, status: 'pending' }).orderBy('line').limit(500).select('line', 'custom_id');
      if (rows.length === 0) return;
      await this.db.transaction(async (trx) => {
        let failed = 0;
        for (const row of rows) {
          failed += await trx('batch_lines').where({ batch_id: batchId, line: row.line, status: 'pending' }).update({ status: 'done', result: resultOf(row.custom_id), succeeded: false });
        }
        await trx('batches').where({ id: batchId }).increment('failed', failed);
      });
    }
  }

  /** Gives a line back (rate limited): it waits until `notBefore`, then any runner may take it. */
  async releaseLine(batchId: string, line: number, claim: string, notBefore: number): Promise<void> {
    await this.db('batch_lines').where({ batch_id: batchId, line, claim, status: 'running' }).update({ status: 'pending', claim: null, lease_until: null, not_before: notBefore });
  }

  /** What is left: lines waiting, and the earliest time a line running elsewhere could be taken over. */
  async remaining(batchId: string): Promise<{ pending: number; running: number; nextDueAt: number | null }> {
    const rows: Array<{ status: string; n: number | string; lease: number | string | null; due: number | string | null }> = await this.db('batch_lines')
      .where('batch_id', batchId)
      .whereIn('status', ['pending', 'running'])
      .groupBy('status')
      .select('status')
      .count({ n: '*' })
      .min({ lease: 'lease_until', due: 'not_before' });
    let pending = 0;
    let running = 0;
    let nextDueAt: number | null = null;
    const consider = (value: number | string | null) => {
      if (value === null || value === undefined) return;
      nextDueAt = nextDueAt === null ? Number(value) : Math.min(nextDueAt, Number(value));
    };
    for (const row of rows) {
      if (row.status === 'pending') {
        pending = Number(row.n);
        consider(row.due);
      } else {
        running = Number(row.n);
        consider(row.lease);
      }
    }
    return { pending, running, nextDueAt };
  }

  /** Finished lines' results in line order, a page at a time (the output and error files are written from these). */
  async results(batchId: string, succeeded: boolean, afterLine: number, limit: number): Promise<Array<{ line: number; result: string }>> {
    const query = this.db('batch_lines').where('batch_id', batchId).andWhere('line', '>', afterLine).whereNotNull('result');
    if (succeeded) query.andWhere('succeeded', true);
    else query.andWhere((q) => q.whereNull('succeeded').orWhere('succeeded', false));
    const rows: Array<{ line: number; result: string }> = await query.orderBy('line').limit(limit).select('line', 'result');
    return rows.map((row) => ({ line: Number(row.line), result: row.result }));
  }
}
