import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { fromJson, toJson } from '../json-column.js';
import { readLimitColumns, writeLimitColumns } from '../limit-columns.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

/**
 * What a workspace owns besides its configuration (which its foreign keys delete): assistants and
 * their conversations, files, batches, stored responses, vector stores and MCP sessions. Request
 * logs, feedback, exports and rollups stay: they are the organisation's record of its traffic.
 */
const WORKSPACE_CONTENT = [
  'assistant_run_steps',
  'assistant_runs',
  'assistant_messages',
  'assistant_threads',
  'assistants',
  'responses',
  'batches',
  'vector_store_file_batches',
  'vector_store_files',
  'vector_stores',
  'mcp_sessions',
  'files',
] as const;

export interface Workspace extends AttachedLimits {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  is_default: boolean;
  defaults: Record<string, unknown>;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

type Row = Omit<Workspace, 'defaults' | 'settings' | 'is_default'> & { defaults: unknown; settings: unknown; is_default: unknown };

const toWorkspace = (row: Row): Workspace => ({
  ...row,
  is_default: Boolean(row.is_default),
  defaults: fromJson(row.defaults, {}),
  settings: fromJson(row.settings, {}),
  ...readLimitColumns(row as unknown as Record<string, unknown>),
});

export interface NewWorkspace extends AttachedLimits {
  organisation_id: string;
  name: string;
  slug: string;
  description?: string | null;
  is_default?: boolean;
  defaults?: Record<string, unknown>;
  settings?: Record<string, unknown>;
}

export class WorkspacesRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewWorkspace, now: string): Promise<Workspace> {
    const row = {
      id: randomUUID(),
      organisation_id: input.organisation_id,
      name: input.name,
      slug: input.slug,
      description: input.description ?? null,
      is_default: input.is_default ?? false,
      defaults: toJson(input.defaults ?? {}),
      settings: toJson(input.settings ?? {}),
      ...writeLimitColumns(input),
      created_at: now,
      updated_at: now,
    };
    await this.db('workspaces').insert(row);
    return toWorkspace(row);
  }

  async get(organisationId: string, id: string): Promise<Workspace | undefined> {
    const row = await this.db('workspaces').where({ organisation_id: organisationId, id }).first();
    return row ? toWorkspace(row) : undefined;
  }

  /** Finds a workspace by id or by slug. */
  async find(organisationId: string, idOrSlug: string): Promise<Workspace | undefined> {
    const row = await this.db('workspaces')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toWorkspace(row) : undefined;
  }

  async getDefault(organisationId: string): Promise<Workspace | undefined> {
    const row = await this.db('workspaces').where({ organisation_id: organisationId, is_default: true }).first();
    return row ? toWorkspace(row) : undefined;
  }

  list(organisationId: string, page: PageRequest, onlyId?: string): Promise<Page<Workspace>> {
    const query = this.db('workspaces').where({ organisation_id: organisationId });
    if (onlyId) query.andWhere({ id: onlyId });
    return paginate(query, page, toWorkspace);
  }

  async update(
    organisationId: string,
    id: string,
    changes: Partial<Pick<Workspace, 'name' | 'slug' | 'description' | 'defaults' | 'settings' | 'usage_limits' | 'rate_limits'>>,
    now: string,
  ): Promise<void> {
    const row: Record<string, unknown> = { ...changes, updated_at: now };
    if (changes.defaults) row.defaults = toJson(changes.defaults);
    if (changes.settings) row.settings = toJson(changes.settings);
    Object.assign(row, writeLimitColumns(changes));
    await this.db('workspaces').where({ organisation_id: organisationId, id }).update(row);
  }

  /** Workspaces whose defaults.user_api_key_config is this config id (a config delete is refused while any is). */
  async defaultingToConfig(organisationId: string, configId: string): Promise<Workspace[]> {
    const rows = await this.db('workspaces').where({ organisation_id: organisationId }).whereNotNull('defaults');
    return rows.map(toWorkspace).filter((workspace) => workspace.defaults.user_api_key_config === configId);
  }

  /** The workspace, its configuration (by foreign key) and its content (below), at once. */
  async delete(organisationId: string, id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      if (!(await trx('workspaces').where({ organisation_id: organisationId, id }).first('id'))) return;
      await trx('vector_store_chunks').whereIn('vector_store_id', trx('vector_stores').where('workspace_id', id).select('id')).delete();
      await trx('file_chunks').whereIn('file_id', trx('files').where('workspace_id', id).select('id')).delete();
      for (const table of WORKSPACE_CONTENT) await trx(table).where('workspace_id', id).delete();
      await trx('workspaces').where({ organisation_id: organisationId, id }).delete();
    });
  }
}
