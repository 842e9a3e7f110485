import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type ManagerType = 'hashicorp_vault' | 'aws_sm' | 'azure_kv';

export interface SecretReferenceRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  manager_type: ManagerType;
  /** Auth fields with secret values masked. */
  auth_config: Record<string, unknown>;
  /** Sealed JSON of the auth secrets by path (store/secret-fields.ts); null when none. */
  secrets: string | null;
  secret_path: string;
  secret_key: string | null;
  allow_all_workspaces: boolean;
  tags: Record<string, string>;
  status: 'ACTIVE';
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export type NewSecretReference = Omit<SecretReferenceRecord, 'id' | 'created_at' | 'updated_at' | 'status'>;

/** Which saved resource maps a reference. */
export type SecretReferenceUser = { integration_id: string } | { provider_id: string };

function toRecord(row: Record<string, unknown>): SecretReferenceRecord {
  return {
    ...(row as unknown as SecretReferenceRecord),
    allow_all_workspaces: Boolean(row.allow_all_workspaces),
    auth_config: fromJson(row.auth_config, {}),
    tags: fromJson(row.tags, {}),
  };
}

function toRow(changes: Partial<SecretReferenceRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...changes };
  if ('auth_config' in changes) row.auth_config = toJson(changes.auth_config);
  if ('tags' in changes) row.tags = toJson(changes.tags);
  return row;
}

export class SecretReferencesRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewSecretReference, now: string): Promise<SecretReferenceRecord> {
    const record: SecretReferenceRecord = { ...input, id: randomUUID(), status: 'ACTIVE', created_at: now, updated_at: now };
    await this.db('secret_references').insert(toRow(record));
    return record;
  }

  /** By id or slug. */
  async find(organisationId: string, idOrSlug: string): Promise<SecretReferenceRecord | undefined> {
    const row = await this.db('secret_references')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('secret_references').where({ organisation_id: organisationId, slug }).first('id'));
  }

  list(
    organisationId: string,
    filter: { workspace_id?: string; manager_type?: string; search?: string },
    page: PageRequest,
  ): Promise<Page<SecretReferenceRecord>> {
    const query = this.db('secret_references').where({ organisation_id: organisationId });
    if (filter.manager_type) query.andWhere({ manager_type: filter.manager_type });
    if (filter.search) {
      const like = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query.andWhere((q) => q.whereRaw(`lower(name) like ? escape '\\'`, [like]).orWhereRaw(`lower(slug) like ? escape '\\'`, [like]));
    }
    if (filter.workspace_id) {
      const workspaceId = filter.workspace_id;
      query.andWhere((q) =>
        q
          .where({ allow_all_workspaces: true })
          .orWhereIn('id', this.db('secret_reference_workspaces').select('secret_reference_id').where({ workspace_id: workspaceId })),
      );
    }
    return paginate(query, page, toRecord);
  }

  async update(organisationId: string, id: string, changes: Partial<SecretReferenceRecord>, now: string): Promise<void> {
    await this.db('secret_references').where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db('secret_references').where({ organisation_id: organisationId, id }).delete();
  }

  async workspaceIds(referenceId: string): Promise<string[]> {
    const rows = await this.db('secret_reference_workspaces').where({ secret_reference_id: referenceId }).orderBy('workspace_id').select('workspace_id');
    return rows.map((row: { workspace_id: string }) => row.workspace_id);
  }

  async setWorkspaces(referenceId: string, workspaceIds: string[]): Promise<void> {
    await this.db('secret_reference_workspaces').where({ secret_reference_id: referenceId }).delete();
    if (workspaceIds.length) {
      await this.db('secret_reference_workspaces').insert(workspaceIds.map((workspace_id) => ({ secret_reference_id: referenceId, workspace_id })));
    }
  }

  async allows(reference: SecretReferenceRecord, workspaceId: string): Promise<boolean> {
    if (reference.allow_all_workspaces) return true;
    return Boolean(
      await this.db('secret_reference_workspaces').where({ secret_reference_id: reference.id, workspace_id: workspaceId }).first('workspace_id'),
    );
  }

  /** Replaces the references one integration or provider maps. */
  async setUses(user: SecretReferenceUser, referenceIds: string[]): Promise<void> {
    await this.db('secret_reference_uses').where(user).delete();
    const unique = [...new Set(referenceIds)];
    if (unique.length) await this.db('secret_reference_uses').insert(unique.map((secret_reference_id) => ({ secret_reference_id, ...user })));
  }

  async countUses(referenceId: string): Promise<number> {
    const row = (await this.db('secret_reference_uses').where({ secret_reference_id: referenceId }).count({ n: '*' }).first()) as
      | { n: number | string }
      | undefined;
    return Number(row?.n ?? 0);
  }
}
