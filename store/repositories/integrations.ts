import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface IntegrationModelSettings {
  slug: string;
  enabled?: boolean;
  custom_headers?: Record<string, string>;
  configurations?: { custom_host?: string };
}

export interface IntegrationRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  ai_provider_id: string;
  auth_type: string;
  masked_key: string | null;
  /** Cloud and auth fields with secret values already masked. */
  configurations: Record<string, unknown>;
  /** Sealed JSON of the secret values by path (store/secret-fields.ts); null when there are none. */
  secrets: string | null;
  pricing_adjustments: { multiplier?: number };
  secret_mappings: Array<Record<string, unknown>>;
  models: IntegrationModelSettings[];
  all_workspaces: boolean;
  status: 'active';
  created_at: string;
  updated_at: string;
}

export type NewIntegration = Omit<IntegrationRecord, 'id' | 'created_at' | 'updated_at' | 'status' | 'models'>;

const JSON_COLUMNS = ['configurations', 'pricing_adjustments', 'secret_mappings', 'models'] as const;

function toRecord(row: Record<string, unknown>): IntegrationRecord {
  return {
    ...(row as unknown as IntegrationRecord),
    all_workspaces: Boolean(row.all_workspaces),
    configurations: fromJson(row.configurations, {}),
    pricing_adjustments: fromJson(row.pricing_adjustments, {}),
    secret_mappings: fromJson(row.secret_mappings, []),
    models: fromJson(row.models, []),
  };
}

function toRow(changes: Partial<IntegrationRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...changes };
  for (const column of JSON_COLUMNS) if (column in changes) row[column] = toJson(changes[column]);
  return row;
}

export class IntegrationsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewIntegration, now: string): Promise<IntegrationRecord> {
    const record: IntegrationRecord = { ...input, id: randomUUID(), status: 'active', models: [], created_at: now, updated_at: now };
    await this.db('integrations').insert(toRow(record));
    return record;
  }

  /** By id or slug. */
  async find(organisationId: string, idOrSlug: string): Promise<IntegrationRecord | undefined> {
    const row = await this.db('integrations')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('integrations').where({ organisation_id: organisationId, slug }).first('id'));
  }

  /** Newest first; with a workspace, only the integrations that workspace may use. */
  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<IntegrationRecord>> {
    const query = this.db('integrations').where({ organisation_id: organisationId });
    if (filter.workspace_id) {
      const workspaceId = filter.workspace_id;
      query.andWhere((q) =>
        q.where({ all_workspaces: true }).orWhereIn('id', this.db('integration_workspaces').select('integration_id').where({ workspace_id: workspaceId })),
      );
    }
    return paginate(query, page, toRecord);
  }

  async update(organisationId: string, id: string, changes: Partial<IntegrationRecord>, now: string): Promise<void> {
    await this.db('integrations').where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db('integrations').where({ organisation_id: organisationId, id }).delete();
  }

  async workspaceIds(integrationId: string): Promise<string[]> {
    const rows = await this.db('integration_workspaces').where({ integration_id: integrationId }).orderBy('workspace_id').select('workspace_id');
    return rows.map((row: { workspace_id: string }) => row.workspace_id);
  }

  async setWorkspaces(integrationId: string, workspaceIds: string[]): Promise<void> {
    await this.db('integration_workspaces').where({ integration_id: integrationId }).delete();
    if (workspaceIds.length) {
      await this.db('integration_workspaces').insert(workspaceIds.map((workspace_id) => ({ integration_id: integrationId, workspace_id })));
    }
  }

  async allows(integration: IntegrationRecord, workspaceId: string): Promise<boolean> {
    if (integration.all_workspaces) return true;
    return Boolean(await this.db('integration_workspaces').where({ integration_id: integration.id, workspace_id: workspaceId }).first('workspace_id'));
  }
}
