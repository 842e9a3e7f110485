import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { derivedId } from '../derived-id.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface LabelRecord {
  id: string;
  organisation_id: string;
  /** null: organisation-wide. */
  workspace_id: string | null;
  name: string;
  description: string | null;
  color_code: string | null;
  is_universal: boolean;
  status: 'active';
  created_at: string;
  updated_at: string;
}

/** The labels every organisation has from the start. */
export const UNIVERSAL_LABELS = ['production', 'staging', 'development'] as const;

const toLabel = (row: Record<string, unknown>): LabelRecord => ({ ...(row as unknown as LabelRecord), is_universal: Boolean(row.is_universal) });

export class PromptLabelsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Creates the built-in labels on first use (derived ids: concurrent first uses create them once). */
  async ensureUniversal(organisationId: string, now: string): Promise<void> {
    const ids = UNIVERSAL_LABELS.map((name) => derivedId(`label:${organisationId}:${name}`));
    const present = await this.db('prompt_labels').whereIn('id', ids).count('* as n').first();
    if (Number(present?.n ?? 0) === ids.length) return;
    const rows = UNIVERSAL_LABELS.map((name, i) => ({
      id: ids[i],
      organisation_id: organisationId,
      workspace_id: null,
      name,
      description: null,
      color_code: null,
      is_universal: true,
      status: 'active',
      created_at: now,
      updated_at: now,
    }));
    await this.db('prompt_labels').insert(rows).onConflict('id').ignore();
  }

  async create(input: Pick<LabelRecord, 'organisation_id' | 'workspace_id' | 'name' | 'description' | 'color_code'>, now: string): Promise<LabelRecord> {
    const record: LabelRecord = { ...input, id: randomUUID(), is_universal: false, status: 'active', created_at: now, updated_at: now };
    await this.db('prompt_labels').insert(record);
    return record;
  }

  async get(organisationId: string, id: string): Promise<LabelRecord | undefined> {
    const row = await this.db('prompt_labels').where({ organisation_id: organisationId, id }).first();
    return row ? toLabel(row) : undefined;
  }

  /** A label by name as a workspace sees it: its own label of that name first, else the organisation's. */
  async byName(organisationId: string, workspaceId: string, name: string): Promise<LabelRecord | undefined> {
    const rows = await this.db('prompt_labels')
      .where({ organisation_id: organisationId, name })
      .andWhere((q) => q.whereNull('workspace_id').orWhere({ workspace_id: workspaceId }));
    const own = rows.find((row: Record<string, unknown>) => row.workspace_id === workspaceId) ?? rows[0];
    return own ? toLabel(own) : undefined;
  }

  /** Whether a label of this name already exists where a new one would clash (same workspace, or organisation-wide). */
  async nameTaken(organisationId: string, workspaceId: string | null, name: string, exceptId?: string): Promise<boolean> {
    const query = this.db('prompt_labels').where({ organisation_id: organisationId, name });
    if (workspaceId !== null) query.andWhere((q) => q.whereNull('workspace_id').orWhere({ workspace_id: workspaceId }));
    if (exceptId) query.andWhereNot({ id: exceptId });
    return Boolean(await query.first('id'));
  }

  /** Organisation-wide labels and, with a workspace, that workspace's; without one, every label. */
  list(organisationId: string, filter: { workspace_id?: string; search?: string }, page: PageRequest): Promise<Page<LabelRecord>> {
    const query = this.db('prompt_labels').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere((q) => q.whereNull('workspace_id').orWhere({ workspace_id: filter.workspace_id }));
    if (filter.search) query.andWhereRaw('lower(name) like ?', [`%${filter.search.toLowerCase()}%`]);
    return paginate(query, page, toLabel);
  }

  async update(id: string, changes: Partial<Pick<LabelRecord, 'name' | 'description' | 'color_code'>>, now: string): Promise<void> {
    await this.db('prompt_labels').where({ id }).update({ ...changes, updated_at: now });
  }

  /** Versions it pointed at lose the label (the column is set null by the foreign key, done here too for clarity). */
  async delete(id: string): Promise<void> {
    await this.db('prompt_versions').where({ label_id: id }).update({ label_id: null });
    await this.db('prompt_labels').where({ id }).delete();
  }
}
