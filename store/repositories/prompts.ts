import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';
import type { SharedPromptsLookup } from '../shared-prompts.js';

/** Prompts and partials share a table: the same version, default and sharing rules apply to both. */
export type PromptKind = 'prompt' | 'partial';

export interface PromptRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  collection_id: string;
  kind: PromptKind;
  name: string;
  slug: string;
  description: string | null;
  default_version: number;
  latest_version: number;
  status: 'active';
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** What a version holds (for a partial, only `string`). */
export interface PromptTemplateFields {
  string?: unknown;
  parameters?: Record<string, unknown>;
  model?: string | null;
  virtual_key?: string | null;
  functions?: unknown[] | null;
  tools?: unknown[] | null;
  tool_choice?: unknown;
  template_metadata?: Record<string, unknown> | null;
  is_raw_template?: number;
}

export interface PromptVersionRecord {
  id: string;
  prompt_id: string;
  version: number;
  template: PromptTemplateFields;
  description: string | null;
  label_id: string | null;
  status: 'active' | 'archived';
  created_by: string | null;
  created_at: string;
}

/**
 * Which prompts a list shows. `workspace_id`: the workspace the caller looks from (a workspace
 * key's own, or the one an admin names); without it (admin keys) every workspace's.
 */
export interface PromptFilter {
  workspace_id?: string;
  /** own: the workspace's; shared: shared with it by others; all: both. */
  type: 'all' | 'own' | 'shared';
  collection_id?: string;
  search?: string;
}

const toVersion = (row: Record<string, unknown>): PromptVersionRecord => ({ ...(row as unknown as PromptVersionRecord), template: fromJson(row.template, {}) });

export class PromptsRepository implements SharedPromptsLookup {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Inserts the prompt and its version 1, the default. Run inside a transaction. */
  async create(
    input: Pick<PromptRecord, 'organisation_id' | 'workspace_id' | 'collection_id' | 'kind' | 'name' | 'slug' | 'description' | 'created_by'>,
    template: PromptTemplateFields,
    versionDescription: string | null,
    now: string,
  ): Promise<PromptRecord> {
    const record: PromptRecord = { ...input, id: randomUUID(), default_version: 1, latest_version: 1, status: 'active', created_at: now, updated_at: now };
    await this.db('prompts').insert(record);
    await this.insertVersion(record.id, 1, template, versionDescription, null, input.created_by, now);
    return record;
  }

  async find(organisationId: string, kind: PromptKind, idOrSlug: string): Promise<PromptRecord | undefined> {
    return this.db('prompts')
      .where({ organisation_id: organisationId, kind })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
  }

  async slugTaken(organisationId: string, kind: PromptKind, slug: string): Promise<boolean> {
    return Boolean(await this.db('prompts').where({ organisation_id: organisationId, kind, slug }).first('id'));
  }

  list(organisationId: string, kind: PromptKind, filter: PromptFilter, page: PageRequest): Promise<Page<PromptRecord>> {
    const query = this.db('prompts').where({ organisation_id: organisationId, kind });
    const sharedWith = (workspaceId: string | undefined) => {
      const shares = this.db('prompt_shares').select('prompt_id');
      if (workspaceId) shares.where({ workspace_id: workspaceId });
      return shares;
    };
    const ws = filter.workspace_id;
    if (filter.type === 'own' && ws) query.andWhere({ workspace_id: ws });
    if (filter.type === 'shared') {
      query.whereIn('id', sharedWith(ws));
      if (ws) query.andWhereNot({ workspace_id: ws });
    }
    if (filter.type === 'all' && ws) query.andWhere((q) => q.where({ workspace_id: ws }).orWhereIn('id', sharedWith(ws)));
    if (filter.collection_id) query.andWhere({ collection_id: filter.collection_id });
    if (filter.search) {
      const like = `%${filter.search.toLowerCase()}%`;
      query.andWhere((q) => q.whereRaw('lower(name) like ?', [like]).orWhereRaw('lower(slug) like ?', [like]));
    }
    return paginate(query, page, (row: PromptRecord) => row);
  }

  async update(id: string, changes: Partial<Pick<PromptRecord, 'name' | 'description' | 'collection_id' | 'default_version'>>, now: string): Promise<void> {
    await this.db('prompts').where({ id }).update({ ...changes, updated_at: now });
  }

  async delete(id: string): Promise<void> {
    await this.db('prompt_shares').where({ prompt_id: id }).delete();
    await this.db('prompt_versions').where({ prompt_id: id }).delete();
    await this.db('prompts').where({ id }).delete();
  }

  // Versions.

  async version(promptId: string, version: number): Promise<PromptVersionRecord | undefined> {
    const row = await this.db('prompt_versions').where({ prompt_id: promptId, version }).first();
    return row ? toVersion(row) : undefined;
  }

  async versionById(promptId: string, id: string): Promise<PromptVersionRecord | undefined> {
    const row = await this.db('prompt_versions').where({ prompt_id: promptId, id }).first();
    return row ? toVersion(row) : undefined;
  }

  async versionWithLabel(promptId: string, labelId: string): Promise<PromptVersionRecord | undefined> {
    const row = await this.db('prompt_versions').where({ prompt_id: promptId, label_id: labelId }).first();
    return row ? toVersion(row) : undefined;
  }

  /** The versions shown with list items (each prompt's default), in one round trip. */
  async defaultVersionsOf(prompts: PromptRecord[]): Promise<Map<string, PromptVersionRecord>> {
    if (!prompts.length) return new Map();
    const rows = await this.db('prompt_versions').where((q) => {
      for (const prompt of prompts) q.orWhere({ prompt_id: prompt.id, version: prompt.default_version });
    });
    return new Map(rows.map((row: Record<string, unknown>) => [row.prompt_id as string, toVersion(row)]));
  }

  listVersions(promptId: string, page: PageRequest): Promise<Page<PromptVersionRecord>> {
    return paginate(this.db('prompt_versions').where({ prompt_id: promptId }), page, toVersion, 'version');
  }

  async allVersions(promptId: string): Promise<PromptVersionRecord[]> {
    return (await this.db('prompt_versions').where({ prompt_id: promptId }).orderBy('version', 'asc')).map(toVersion);
  }

  /**
   * Adds the next version (never the default: makeDefault moves that). Run inside a transaction;
   * two writers racing for one number fail on the (prompt_id, version) key.
   */
  async addVersion(prompt: PromptRecord, template: PromptTemplateFields, description: string | null, by: string | null, now: string): Promise<PromptVersionRecord> {
    const next = prompt.latest_version + 1;
    const version = await this.insertVersion(prompt.id, next, template, description, null, by, now);
    await this.db('prompts').where({ id: prompt.id }).update({ latest_version: next, updated_at: now });
    return version;
  }

  /** A label points at one version of a prompt: setting it here takes it off the prompt's other versions. */
  async setLabel(promptId: string, versionId: string, labelId: string | null): Promise<void> {
    if (labelId !== null) await this.db('prompt_versions').where({ prompt_id: promptId, label_id: labelId }).update({ label_id: null });
    await this.db('prompt_versions').where({ prompt_id: promptId, id: versionId }).update({ label_id: labelId });
  }

  private async insertVersion(
    promptId: string,
    version: number,
    template: PromptTemplateFields,
    description: string | null,
    labelId: string | null,
    by: string | null,
    now: string,
  ): Promise<PromptVersionRecord> {
    const record: PromptVersionRecord = { id: randomUUID(), prompt_id: promptId, version, template, description, label_id: labelId, status: 'active', created_by: by, created_at: now };
    await this.db('prompt_versions').insert({ ...record, template: toJson(template) });
    return record;
  }

  // Sharing.

  async sharedWith(promptId: string): Promise<string[]> {
    return (await this.db('prompt_shares').where({ prompt_id: promptId }).orderBy('workspace_id')).map((row: { workspace_id: string }) => row.workspace_id);
  }

  async sharesOf(promptIds: string[]): Promise<Map<string, string[]>> {
    const shares = new Map<string, string[]>(promptIds.map((id) => [id, []]));
    if (!promptIds.length) return shares;
    for (const row of await this.db('prompt_shares').whereIn('prompt_id', promptIds).orderBy('workspace_id')) shares.get(row.prompt_id)!.push(row.workspace_id);
    return shares;
  }

  async isSharedWith(promptId: string, workspaceId: string): Promise<boolean> {
    return Boolean(await this.db('prompt_shares').where({ prompt_id: promptId, workspace_id: workspaceId }).first('prompt_id'));
  }

  async share(promptId: string, workspaceIds: string[], now: string): Promise<void> {
    if (!workspaceIds.length) return;
    await this.db('prompt_shares')
      .insert(workspaceIds.map((workspace_id) => ({ prompt_id: promptId, workspace_id, created_at: now })))
      .onConflict(['prompt_id', 'workspace_id'])
      .ignore();
  }

  /** Stops sharing with the workspaces named, or with every one. */
  async unshare(promptId: string, workspaceIds?: string[]): Promise<void> {
    const query = this.db('prompt_shares').where({ prompt_id: promptId });
    if (workspaceIds) query.whereIn('workspace_id', workspaceIds);
    await query.delete();
  }

  /** The workspace-delete guard (store/shared-prompts.ts): does the workspace own a prompt or partial it shares? */
  async hasSharedPromptsOrPartials(workspaceId: string): Promise<boolean> {
    const row = await this.db('prompt_shares')
      .join('prompts', 'prompts.id', 'prompt_shares.prompt_id')
      .where('prompts.workspace_id', workspaceId)
      .first('prompt_shares.prompt_id');
    return Boolean(row);
  }

  /**
   * An independent copy in another workspace, with every version (numbers, default and
   * descriptions kept; labels are not carried: they belong to the source's history). Run inside
   * a transaction.
   */
  async fork(
    source: PromptRecord,
    target: Pick<PromptRecord, 'workspace_id' | 'collection_id' | 'name' | 'slug' | 'created_by'>,
    now: string,
  ): Promise<PromptRecord> {
    const record: PromptRecord = {
      ...source,
      ...target,
      id: randomUUID(),
      created_at: now,
      updated_at: now,
    };
    await this.db('prompts').insert(record);
    for (const version of await this.allVersions(source.id)) {
      await this.insertVersion(record.id, version.version, version.template, version.description, null, target.created_by, now);
    }
    return record;
  }
}
