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

const toRecord = (row: Record<string, unknown>): LogExportRecord => ({
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

  async idsInStatus(status: LogExportStatus): Promise<string[]> {
    const rows = await this.db('log_exports').select('id').where({ status }).whereNull('archived_at');
    return rows.map((row: { id: string }) => row.id);
  }

  async update(id: string, changes: LogExportChanges, now: string): Promise<void> {
    await this.db('log_exports').where({ id }).update(this.toRow({ ...changes, updated_at: now }));
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

  private toRow(values: LogExportChanges): Record<string, unknown> {
    const row: Record<string, unknown> = { ...values };
    if ('filters' in values) row.filters = toJson(values.filters);
    if ('requested_fields' in values) row.requested_fields = toJson(values.requested_fields);
    if ('resume_cursor' in values) row.resume_cursor = toJson(values.resume_cursor);
    if ('error' in values) row.error = toJson(values.error);
    return row;
  }
}
