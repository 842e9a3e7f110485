import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { derivedId } from '../derived-id.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface CollectionRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  parent_collection_id: string | null;
  is_default: boolean;
  status: 'active';
  created_at: string;
  updated_at: string;
}

const toCollection = (row: Record<string, unknown>): CollectionRecord => ({ ...(row as unknown as CollectionRecord), is_default: Boolean(row.is_default) });

export interface CollectionFilter {
  workspace_id?: string;
  parent_collection_id?: string;
  search?: string;
}

export class PromptCollectionsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: Pick<CollectionRecord, 'organisation_id' | 'workspace_id' | 'name' | 'slug' | 'parent_collection_id'>, now: string): Promise<CollectionRecord> {
    const record: CollectionRecord = { ...input, id: randomUUID(), is_default: false, status: 'active', created_at: now, updated_at: now };
    await this.db('prompt_collections').insert(record);
    return record;
  }

  /**
   * The workspace's default collection, made on first use: workspaces are created in several
   * places (the API, SCIM, bootstrap), and a derived id makes concurrent first uses create one.
   */
  async ensureDefault(organisationId: string, workspaceId: string, now: string): Promise<CollectionRecord> {
    const id = derivedId(`default-collection:${workspaceId}`);
    const existing = await this.db('prompt_collections').where({ id }).first();
    if (existing) return toCollection(existing);
    await this.db('prompt_collections')
      .insert({ id, organisation_id: organisationId, workspace_id: workspaceId, name: 'Default', slug: `default-${workspaceId}`, parent_collection_id: null, is_default: true, status: 'active', created_at: now, updated_at: now })
      .onConflict('id')
      .ignore();
    return toCollection(await this.db('prompt_collections').where({ id }).first());
  }

  async find(organisationId: string, idOrSlug: string): Promise<CollectionRecord | undefined> {
    const row = await this.db('prompt_collections')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toCollection(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('prompt_collections').where({ organisation_id: organisationId, slug }).first('id'));
  }

  list(organisationId: string, filter: CollectionFilter, page: PageRequest): Promise<Page<CollectionRecord>> {
    const query = this.db('prompt_collections').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    if (filter.parent_collection_id) query.andWhere({ parent_collection_id: filter.parent_collection_id });
    if (filter.search) query.andWhereRaw('lower(name) like ?', [`%${filter.search.toLowerCase()}%`]);
    return paginate(query, page, toCollection);
  }

  async children(id: string): Promise<CollectionRecord[]> {
    return (await this.db('prompt_collections').where({ parent_collection_id: id }).orderBy('created_at', 'desc')).map(toCollection);
  }

  /** Child collections and prompts (partials included) of each collection, in two round trips. */
  async counts(ids: string[]): Promise<Map<string, { child_collections_count: number; prompts_count: number }>> {
    const counts = new Map(ids.map((id) => [id, { child_collections_count: 0, prompts_count: 0 }]));
    if (!ids.length) return counts;
    const children = await this.db('prompt_collections').whereIn('parent_collection_id', ids).groupBy('parent_collection_id').select('parent_collection_id as id').count('* as n');
    for (const row of children) counts.get(row.id as string)!.child_collections_count = Number(row.n);
    const prompts = await this.db('prompts').whereIn('collection_id', ids).groupBy('collection_id').select('collection_id as id').count('* as n');
    for (const row of prompts) counts.get(row.id as string)!.prompts_count = Number(row.n);
    return counts;
  }

  async rename(id: string, name: string, now: string): Promise<void> {
    await this.db('prompt_collections').where({ id }).update({ name, updated_at: now });
  }

  async delete(id: string): Promise<void> {
    await this.db('prompt_collections').where({ id }).delete();
  }
}
