import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { fromJson, toJson } from '../json-column.js';
import { readLimitColumns, writeLimitColumns } from '../limit-columns.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

/** A saved provider reference (`@slug`), also served as a legacy virtual key. */
export interface ProviderRecord extends AttachedLimits {
  id: string;
  organisation_id: string;
  workspace_id: string;
  integration_id: string | null;
  name: string;
  slug: string;
  note: string | null;
  ai_provider_id: string;
  auth_type: string;
  masked_key: string | null;
  /** The provider's own cloud and auth fields, secret values masked. */
  configurations: Record<string, unknown>;
  /** Sealed JSON of the provider's own secret values by path; null when there are none. */
  secrets: string | null;
  /** The provider's own secret mappings (reference ids resolved at save). */
  secret_mappings: Array<Record<string, unknown>>;
  status: 'active';
  created_at: string;
  updated_at: string;
}

export type NewProvider = Omit<ProviderRecord, 'id' | 'created_at' | 'updated_at' | 'status'>;

const toRecord = (row: Record<string, unknown>): ProviderRecord => ({
  ...(row as unknown as ProviderRecord),
  configurations: fromJson(row.configurations, {}),
  secret_mappings: fromJson(row.secret_mappings, []),
  ...readLimitColumns(row),
});

function toRow(changes: Partial<ProviderRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...changes };
  if ('configurations' in changes) row.configurations = toJson(changes.configurations);
  if ('secret_mappings' in changes) row.secret_mappings = toJson(changes.secret_mappings);
  return { ...row, ...writeLimitColumns(changes) };
}

export class ProvidersRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewProvider, now: string): Promise<ProviderRecord> {
    const record: ProviderRecord = { ...input, id: randomUUID(), status: 'active', created_at: now, updated_at: now };
    await this.db('providers').insert(toRow(record));
    return record;
  }

  /** By id or slug; a slug is unique only within a workspace, so slugs need one. */
  async find(organisationId: string, idOrSlug: string, workspaceId: string | null): Promise<ProviderRecord | undefined> {
    const query = this.db('providers').where({ organisation_id: organisationId });
    if (workspaceId) query.andWhere({ workspace_id: workspaceId });
    const row = await query.andWhere((q) => (workspaceId ? q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }) : q.where({ id: idOrSlug }))).first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(workspaceId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('providers').where({ workspace_id: workspaceId, slug }).first('id'));
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<ProviderRecord>> {
    const query = this.db('providers').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, toRecord);
  }

  async countUsing(integrationId: string): Promise<number> {
    const row = (await this.db('providers').where({ integration_id: integrationId }).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  async update(organisationId: string, id: string, changes: Partial<ProviderRecord>, now: string): Promise<void> {
    await this.db('providers').where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db('providers').where({ organisation_id: organisationId, id }).delete();
  }
}
