import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface Workspace {
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
});

export interface NewWorkspace {
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

  list(organisationId: string, page: PageRequest): Promise<Page<Workspace>> {
    return paginate(this.db('workspaces').where({ organisation_id: organisationId }), page, toWorkspace);
  }
}
