import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface DeploymentRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  tags: Record<string, string>;
  source_type: string | null;
  gateway_base_url: string | null;
  mcp_gateway_base_url: string | null;
  /** The deployment key (an organisation API key with scope deployments.sync). */
  api_key_id: string;
  version: string | null;
  last_heartbeat_at: string | null;
  created_at: string;
  updated_at: string;
}

export type NewDeployment = Omit<DeploymentRecord, 'id' | 'created_at' | 'updated_at' | 'version' | 'last_heartbeat_at'>;

const toRecord = (row: Record<string, unknown>): DeploymentRecord => ({ ...(row as unknown as DeploymentRecord), tags: fromJson(row.tags, {}) });

function toRow(changes: Partial<DeploymentRecord>): Record<string, unknown> {
  return 'tags' in changes ? { ...changes, tags: toJson(changes.tags) } : { ...changes };
}

export class DeploymentsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewDeployment, now: string): Promise<DeploymentRecord> {
    const record: DeploymentRecord = { ...input, id: randomUUID(), version: null, last_heartbeat_at: null, created_at: now, updated_at: now };
    await this.db('deployments').insert(toRow(record));
    return record;
  }

  async find(organisationId: string, idOrSlug: string): Promise<DeploymentRecord | undefined> {
    const row = await this.db('deployments')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async byKey(apiKeyId: string): Promise<DeploymentRecord | undefined> {
    const row = await this.db('deployments').where({ api_key_id: apiKeyId }).first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('deployments').where({ organisation_id: organisationId, slug }).first('id'));
  }

  list(organisationId: string, page: PageRequest): Promise<Page<DeploymentRecord>> {
    return paginate(this.db('deployments').where({ organisation_id: organisationId }), page, toRecord);
  }

  async update(organisationId: string, id: string, changes: Partial<DeploymentRecord>, now: string): Promise<void> {
    await this.db('deployments').where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db('deployments').where({ organisation_id: organisationId, id }).delete();
  }
}
