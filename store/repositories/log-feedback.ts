import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';

export interface FeedbackRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string | null;
  trace_id: string;
  value: number;
  weight: number;
  metadata: Record<string, string>;
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
}

export type NewFeedback = Omit<FeedbackRecord, 'id' | 'created_at' | 'updated_at'>;

const toRecord = (row: Record<string, unknown>): FeedbackRecord => ({
  id: row.id as string,
  organisation_id: row.organisation_id as string,
  workspace_id: row.workspace_id as string,
  api_key_id: (row.api_key_id as string | null) ?? null,
  trace_id: row.trace_id as string,
  value: Number(row.value),
  weight: Number(row.weight),
  metadata: fromJson(row.metadata, {}),
  created_at: Number(row.created_at),
  updated_at: Number(row.updated_at),
});

export class LogFeedbackRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewFeedback, now: number): Promise<FeedbackRecord> {
    const record: FeedbackRecord = { ...input, id: randomUUID(), created_at: now, updated_at: now };
    await this.db('log_feedback').insert({ ...record, metadata: toJson(record.metadata) });
    return record;
  }

  async get(organisationId: string, workspaceId: string, id: string): Promise<FeedbackRecord | undefined> {
    const row = await this.db('log_feedback').where({ organisation_id: organisationId, workspace_id: workspaceId, id }).first();
    return row ? toRecord(row) : undefined;
  }

  async update(id: string, changes: Partial<Pick<FeedbackRecord, 'value' | 'weight' | 'metadata'>>, now: number): Promise<void> {
    const values: Record<string, unknown> = { ...changes, updated_at: now };
    if (changes.metadata) values.metadata = toJson(changes.metadata);
    await this.db('log_feedback').where({ id }).update(values);
  }

  async deleteOlderThan(before: number, batch: number): Promise<number> {
    const ids = this.db('log_feedback').select('id').where('created_at', '<', before).limit(batch);
    return this.db('log_feedback').whereIn('id', ids).del();
  }
}
