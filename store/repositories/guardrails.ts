import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface GuardrailCheckRow {
  id: string;
  parameters?: Record<string, unknown>;
  is_enabled?: boolean;
}

export interface GuardrailRecord {
  id: string;
  organisation_id: string;
  /** Null: the guardrail belongs to the whole organisation. */
  workspace_id: string | null;
  name: string;
  slug: string;
  /** Parameters with secret values masked (see gateway/guardrails/check-secrets.ts). */
  checks: GuardrailCheckRow[];
  /** Sealed JSON of the secret values by path; null when there are none. */
  secrets: string | null;
  actions: { deny?: boolean; hold_stream?: boolean };
  fail_on_error: boolean;
  timeout_ms: number | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export type GuardrailChanges = Partial<Pick<GuardrailRecord, 'name' | 'checks' | 'secrets' | 'actions' | 'fail_on_error' | 'timeout_ms'>>;

const toRecord = (row: Record<string, unknown>): GuardrailRecord => ({
  ...(row as unknown as GuardrailRecord),
  checks: fromJson(row.checks, []),
  actions: fromJson(row.actions, {}),
  // SQLite answers booleans as 0/1.
  fail_on_error: Boolean(row.fail_on_error),
});

function toRow(values: Partial<GuardrailRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...values };
  if (values.checks !== undefined) row.checks = toJson(values.checks);
  if (values.actions !== undefined) row.actions = toJson(values.actions);
  return row;
}

export class GuardrailsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: Omit<GuardrailRecord, 'id' | 'created_at' | 'updated_at'>, now: string): Promise<GuardrailRecord> {
    const record: GuardrailRecord = { ...input, id: randomUUID(), created_at: now, updated_at: now };
    await this.db('guardrails').insert(toRow(record));
    return record;
  }

  /** By id or slug (slugs are unique per organisation). */
  async find(organisationId: string, idOrSlug: string): Promise<GuardrailRecord | undefined> {
    const row = await this.db('guardrails')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async byIds(ids: string[]): Promise<GuardrailRecord[]> {
    if (!ids.length) return [];
    return (await this.db('guardrails').whereIn('id', ids)).map(toRecord);
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('guardrails').where({ organisation_id: organisationId, slug }).first('id'));
  }

  /** An organisation's guardrails; with a workspace, that workspace's and the organisation-wide ones. */
  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<GuardrailRecord>> {
    const query = this.db('guardrails').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere((q) => q.where({ workspace_id: filter.workspace_id }).orWhereNull('workspace_id'));
    return paginate(query, page, toRecord);
  }

  async update(id: string, changes: GuardrailChanges, now: string): Promise<void> {
    await this.db('guardrails').where({ id }).update(toRow({ ...changes, updated_at: now }));
  }

  async delete(id: string): Promise<void> {
    await this.db('guardrails').where({ id }).delete();
  }
}
