import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type LogExportStatus = 'draft' | 'in_progress' | 'success' | 'failed' | 'stopped';

/** The filters an export was created with, as the API takes them (times ISO). */
export interface LogExportFilters {
  start_time?: string;
  end_time?: string;
  status?: string;
  model?: string;
  provider?: string;
  trace_id?: string;
  api_key_id?: string;
  metadata?: Record<string, string>;
}

export interface LogExportRecord {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  status: LogExportStatus;
  description: string | null;
  filters: LogExportFilters;
  requested_fields: string[];
  total_rows: number | null;
  processed_rows: number;
  resume_cursor: [number, string] | null;
  bytes_written: number;
  error: { code: string; message: string } | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  archived_at: string | null;
}

// The lease columns are the runners' bookkeeping, not part of the export a caller sees.
const toRecord = ({ lease_owner: _owner, lease_expires_at: _expires, ...row }: Record<string, unknown>): LogExportRecord => ({
  ...(row as unknown as LogExportRecord),
  filters: fromJson(row.filters, {}),
  requested_fields: fromJson(row.requested_fields, []),
  total_rows: row.total_rows === null || row.total_rows === undefined ? null : Number(row.total_rows),
  processed_rows: Number(row.processed_rows),
  resume_cursor: fromJson(row.resume_cursor, null),
  bytes_written: Number(row.bytes_written),
  error: fromJson(row.error, null),
});

export type LogExportChanges = Partial<Omit<LogExportRecord, 'id' | 'organisation_id' | 'created_at'>>;

export class LogExportsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(
    input: Pick<LogExportRecord, 'organisation_id' | 'workspace_id' | 'description' | 'filters' | 'requested_fields' | 'created_by'>,
    now: string,
  ): Promise<LogExportRecord> {
    const record: LogExportRecord = {
      ...input,
      id: randomUUID(),
      status: 'draft',
      total_rows: null,
      processed_rows: 0,
      resume_cursor: null,
      bytes_written: 0,
      error: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
      archived_at: null,
    };
    await this.db('log_exports').insert(this.toRow(record));
    return record;
  }

  /** An export that has not been deleted (archived). */
  async get(organisationId: string, id: string): Promise<LogExportRecord | undefined> {
    const row = await this.db('log_exports').where({ organisation_id: organisationId, id }).whereNull('archived_at').first();
    return row ? toRecord(row) : undefined;
  }

  async getById(id: string): Promise<LogExportRecord | undefined> {
    const row = await this.db('log_exports').where({ id }).first();
    return row ? toRecord(row) : undefined;
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<LogExportRecord>> {
    const query = this.db('log_exports').where({ organisation_id: organisationId }).whereNull('archived_at');
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, toRecord);
  }

  /** Exports in progress that no instance holds: never claimed, released, or their holder's lease lapsed. */
  async idsUnleased(now: string): Promise<string[]> {
    const rows = await this.running().where((q) => q.whereNull('lease_owner').orWhere('lease_expires_at', '<', now)).select('id');
    return rows.map((row: { id: string }) => row.id);
  }

  /** Takes the export for `owner` until `expiresAt` unless another instance holds a live lease; says whether it did. */
  async claimLease(id: string, owner: string, now: string, expiresAt: string): Promise<boolean> {
    const count = await this.running()
      .where({ id })
      .where((q) => q.whereNull('lease_owner').orWhere('lease_expires_at', '<', now))
      .update({ lease_owner: owner, lease_expires_at: expiresAt });
    return count > 0;
  }

  /** Extends the lease `owner` holds; false once it is lost or the export is no longer running (cancelled, deleted). */
  async renewLease(id: string, owner: string, expiresAt: string): Promise<boolean> {
    const count = await this.running().where({ id, lease_owner: owner }).update({ lease_expires_at: expiresAt });
    return count > 0;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.db('log_exports').where({ id, lease_owner: owner }).update({ lease_owner: null, lease_expires_at: null });
  }

  /** Records progress and renews the lease, only while `owner` still holds it. */
  async checkpoint(id: string, owner: string, progress: LogExportChanges, expiresAt: string, now: string): Promise<boolean> {
    const count = await this.running()
      .where({ id, lease_owner: owner })
      .update({ ...this.toRow({ ...progress, updated_at: now }), lease_expires_at: expiresAt });
    return count > 0;
  }

  /** Ends a running export (success or failed) and drops its lease, only if `owner` still holds it. */
  async finishLeased(id: string, owner: string, to: LogExportStatus, changes: LogExportChanges, now: string): Promise<boolean> {
    const count = await this.running()
      .where({ id, lease_owner: owner })
      .update({ ...this.toRow({ ...changes, status: to, updated_at: now }), lease_owner: null, lease_expires_at: null });
    return count > 0;
  }

  /** Moves the export to `to` only if it is still in one of `from`; says whether it moved (no lost race). */
  async transition(id: string, from: LogExportStatus[], to: LogExportStatus, changes: LogExportChanges, now: string): Promise<boolean> {
    const count = await this.db('log_exports')
      .where({ id })
      .whereIn('status', from)
      .whereNull('archived_at')
      .update(this.toRow({ ...changes, status: to, updated_at: now }));
    return count > 0;
  }

  private running(): Knex.QueryBuilder {
    return this.db('log_exports').where({ status: 'in_progress' }).whereNull('archived_at');
  }

  private toRow(values: LogExportChanges): Record<string, unknown> {
    const row: Record<string, unknown> = { ...values };
    if ('filters' in values) row.filters = toJson(values.filters);
    if ('requested_fields' in values) row.requested_fields = toJson(values.requested_fields);
    if ('resume_cursor' in values) row.resume_cursor = toJson(values.resume_cursor);
    if ('error' in values) row.error = toJson(values.error);
    return row;
  }
}
