import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ApiKeySubType, ApiKeyType } from '../../core/auth/principal.js';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { fromJson, toJson } from '../json-column.js';
import { readLimitColumns, writeLimitColumns } from '../limit-columns.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

export interface ApiKeyRecord extends AttachedLimits {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  user_id: string | null;
  type: ApiKeyType;
  sub_type: ApiKeySubType;
  name: string;
  description: string | null;
  scopes: string[];
  /** The models the key may call (AllowedModels in the spec); null for every model. */
  allowed_models: string[] | null;
  key_hash: string;
  masked_key: string;
  previous_key_hash: string | null;
  previous_key_expires_at: string | null;
  status: ApiKeyStatus;
  expires_at: string | null;
  rotation_period: string | null;
  rotation_period_days: number | null;
  next_rotation_at: string | null;
  last_rotated_at: string | null;
  created_by: string | null;
  /** Made by gw when the user joined the workspace (organisation/workspace auto-create settings). */
  auto_created: boolean;
  created_at: string;
  updated_at: string;
}

export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'created_at' | 'updated_at' | 'previous_key_hash' | 'previous_key_expires_at' | 'last_rotated_at' | 'status' | 'auto_created' | 'allowed_models'> & {
  status?: ApiKeyStatus;
  allowed_models?: string[] | null;
  auto_created?: boolean;
};

type Row = Omit<ApiKeyRecord, 'scopes' | 'allowed_models' | 'auto_created'> & { scopes: unknown; allowed_models: unknown; auto_created: unknown };

const toRecord = (row: Row): ApiKeyRecord => ({
  ...row,
  scopes: fromJson(row.scopes, []),
  allowed_models: fromJson(row.allowed_models, null),
  auto_created: Boolean(row.auto_created),
  ...readLimitColumns(row as unknown as Record<string, unknown>),
});

export class ApiKeysRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewApiKey, now: string): Promise<ApiKeyRecord> {
    const record: ApiKeyRecord = {
      ...input,
      id: randomUUID(),
      status: input.status ?? 'active',
      allowed_models: input.allowed_models ?? null,
      auto_created: input.auto_created ?? false,
      previous_key_hash: null,
      previous_key_expires_at: null,
      last_rotated_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db('api_keys').insert({ ...record, scopes: toJson(record.scopes), allowed_models: toJson(record.allowed_models), ...writeLimitColumns(record) });
    return record;
  }

  async get(organisationId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db('api_keys').where({ organisation_id: organisationId, id }).first();
    return row ? toRecord(row) : undefined;
  }

  async getMany(organisationId: string, ids: string[]): Promise<ApiKeyRecord[]> {
    const rows = await this.db('api_keys').where({ organisation_id: organisationId }).whereIn('id', ids).orderBy('created_at', 'desc');
    return rows.map(toRecord);
  }

  /** The key whose current secret, or whose previous secret still in its transition period, has this hash. */
  async findBySecretHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db('api_keys').where({ key_hash: hash }).orWhere({ previous_key_hash: hash }).first();
    return row ? toRecord(row) : undefined;
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    const query = this.db('api_keys').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, toRecord);
  }

  async update(organisationId: string, id: string, changes: Partial<Omit<ApiKeyRecord, 'id' | 'organisation_id'>>, now: string): Promise<void> {
    const values: Record<string, unknown> = { ...changes, updated_at: now };
    if (changes.scopes) values.scopes = toJson(changes.scopes);
    if (changes.allowed_models !== undefined) values.allowed_models = toJson(changes.allowed_models);
    Object.assign(values, writeLimitColumns(changes));
    await this.db('api_keys').where({ organisation_id: organisationId, id }).update(values);
  }

  /** Revokes the active keys matching the filter (a removed user, a left workspace) and returns their ids. */
  async revokeWhere(organisationId: string, filter: { user_id?: string; workspace_id?: string }, now: string): Promise<string[]> {
    const ids = (await this.db('api_keys').where({ organisation_id: organisationId, status: 'active', ...filter }).select('id')).map(
      (row: { id: string }) => row.id,
    );
    if (ids.length) {
      await this.db('api_keys').whereIn('id', ids).update({ status: 'revoked', previous_key_hash: null, updated_at: now });
    }
    return ids;
  }

  /** The active keys acting for one user: what a change of that user's role must re-check. */
  async activeIdsOfUser(organisationId: string, userId: string): Promise<string[]> {
    return (await this.db('api_keys').where({ organisation_id: organisationId, user_id: userId, status: 'active' }).select('id')).map(
      (row: { id: string }) => row.id,
    );
  }

  /** The user's active auto-created key in a workspace, if any: auto-create makes at most one. */
  async activeAutoCreated(workspaceId: string, userId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db('api_keys').where({ workspace_id: workspaceId, user_id: userId, auto_created: true, status: 'active' }).first();
    return row ? toRecord(row) : undefined;
  }

  async idsInWorkspace(workspaceId: string): Promise<string[]> {
    return (await this.db('api_keys').where({ workspace_id: workspaceId }).select('id')).map((row: { id: string }) => row.id);
  }
}
