import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { GroupBy, LimitCondition } from '../../core/limit-policy-types.js';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

interface PolicyBase {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  conditions: LimitCondition[];
  group_by: GroupBy[];
  status: 'active';
  created_at: string;
  updated_at: string;
}

export interface UsageLimitsPolicyRecord extends PolicyBase {
  type: 'cost' | 'tokens' | 'requests';
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: 'monthly' | 'weekly' | null;
  periodic_reset_days: number | null;
  reset_anchor: string;
}

export interface RateLimitsPolicyRecord extends PolicyBase {
  type: 'requests' | 'tokens';
  unit: 'minute' | 'hour' | 'day';
  value: number;
  target: 'llm' | 'mcp_tools' | 'agents';
}

type Table = 'usage_limits_policies' | 'rate_limits_policies';
type New<R> = Omit<R, 'id' | 'status' | 'created_at' | 'updated_at'>;

function fromRow<R extends PolicyBase>(row: Record<string, unknown>): R {
  const record = { ...row, conditions: fromJson(row.conditions, []), group_by: fromJson(row.group_by, []) } as Record<string, unknown>;
  // bigint and double columns come back as strings from pg.
  for (const name of ['value', 'credit_limit', 'alert_threshold', 'periodic_reset_days']) {
    if (typeof record[name] === 'string') record[name] = Number(record[name]);
  }
  return record as unknown as R;
}

function toRow(record: Partial<PolicyBase>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...record };
  if (record.conditions !== undefined) row.conditions = toJson(record.conditions);
  if (record.group_by !== undefined) row.group_by = toJson(record.group_by);
  return row;
}

/** One repository for both policy kinds: they differ in columns only. */
export class LimitPoliciesRepository<R extends PolicyBase> {
  constructor(
    private readonly db: Knex | Knex.Transaction,
    private readonly table: Table,
  ) {}

  async create(input: New<R>, now: string): Promise<R> {
    const record = { ...input, id: randomUUID(), status: 'active', created_at: now, updated_at: now } as unknown as R;
    await this.db(this.table).insert(toRow(record));
    return record;
  }

  async find(organisationId: string, id: string): Promise<R | undefined> {
    const row = await this.db(this.table).where({ organisation_id: organisationId, id }).first();
    return row ? fromRow<R>(row) : undefined;
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<R>> {
    const query = this.db(this.table).where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, (row: Record<string, unknown>) => fromRow<R>(row));
  }

  /** Every active policy of an organisation: what the gateway's policy cache loads. */
  async active(organisationId: string): Promise<R[]> {
    const rows = await this.db(this.table).where({ organisation_id: organisationId, status: 'active' });
    return rows.map((row: Record<string, unknown>) => fromRow<R>(row));
  }

  async update(organisationId: string, id: string, changes: Partial<R>, now: string): Promise<void> {
    await this.db(this.table).where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db(this.table).where({ organisation_id: organisationId, id }).delete();
  }
}
