import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface ConfigRecord {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  slug: string;
  status: 'active';
  /** The latest version number. */
  version: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConfigVersionRecord {
  id: string;
  config_id: string;
  version: number;
  /** The document with secret values masked. */
  config: Record<string, unknown>;
  /** Sealed JSON of the secret values by path; null when there are none. */
  secrets: string | null;
  created_by: string | null;
  created_at: string;
}

export interface ConfigDocument {
  config: Record<string, unknown>;
  secrets: string | null;
}

const toVersion = (row: Record<string, unknown>): ConfigVersionRecord => ({
  ...(row as unknown as ConfigVersionRecord),
  config: fromJson(row.config, {}),
});

export class ConfigsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Inserts the config and its version 1. Run inside a transaction (Store.transaction). */
  async create(
    input: Pick<ConfigRecord, 'organisation_id' | 'workspace_id' | 'name' | 'slug' | 'created_by'>,
    document: ConfigDocument,
    now: string,
  ): Promise<ConfigRecord> {
    const record: ConfigRecord = { ...input, id: randomUUID(), status: 'active', version: 1, created_at: now, updated_at: now };
    await this.db('configs').insert(record);
    await this.addVersion(record.id, 1, document, input.created_by, now);
    return record;
  }

  /** By id or slug (slugs are unique per organisation). */
  async find(organisationId: string, idOrSlug: string): Promise<ConfigRecord | undefined> {
    return this.db('configs')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('configs').where({ organisation_id: organisationId, slug }).first('id'));
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<ConfigRecord>> {
    const query = this.db('configs').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, (row: ConfigRecord) => row);
  }

  async version(configId: string, version: number): Promise<ConfigVersionRecord | undefined> {
    const row = await this.db('config_versions').where({ config_id: configId, version }).first();
    return row ? toVersion(row) : undefined;
  }

  /** Several configs' versions in one round trip (list pages). */
  async versionsOf(configs: ConfigRecord[]): Promise<Map<string, ConfigVersionRecord>> {
    if (!configs.length) return new Map();
    const rows = await this.db('config_versions').where((q) => {
      for (const config of configs) q.orWhere({ config_id: config.id, version: config.version });
    });
    return new Map(rows.map((row: Record<string, unknown>) => [row.config_id as string, toVersion(row)]));
  }

  listVersions(configId: string, page: PageRequest): Promise<Page<ConfigVersionRecord>> {
    return paginate(this.db('config_versions').where({ config_id: configId }), page, toVersion, 'version');
  }

  /** Adds the next version and moves the config to it. Run inside a transaction. */
  async update(config: ConfigRecord, changes: { name?: string }, document: ConfigDocument, by: string | null, now: string): Promise<number> {
    const next = config.version + 1;
    await this.addVersion(config.id, next, document, by, now);
    await this.db('configs').where({ id: config.id }).update({ ...changes, version: next, updated_at: now });
    return next;
  }

  async delete(id: string): Promise<void> {
    await this.db('config_versions').where({ config_id: id }).delete();
    await this.db('configs').where({ id }).delete();
  }

  private async addVersion(configId: string, version: number, document: ConfigDocument, by: string | null, now: string): Promise<void> {
    await this.db('config_versions').insert({
      id: randomUUID(),
      config_id: configId,
      version,
      config: toJson(document.config),
      secrets: document.secrets,
      created_by: by,
      created_at: now,
    });
  }
}
