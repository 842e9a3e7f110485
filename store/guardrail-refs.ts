import type { Knex } from 'knex';
import { fromJson } from './json-column.js';

/**
 * The guardrail ids or slugs among `refs` that name no guardrail a config of `workspaceId` may
 * use: the organisation's guardrails of that workspace or of the whole organisation.
 */
export async function unknownGuardrailRefs(
  db: Knex | Knex.Transaction,
  organisationId: string,
  workspaceId: string | null,
  refs: string[],
): Promise<string[]> {
  const wanted = [...new Set(refs)];
  if (!wanted.length) return [];
  const rows: Array<{ id: string; slug: string; workspace_id: string | null }> = await db('guardrails')
    .where({ organisation_id: organisationId })
    .andWhere((q) => q.whereIn('id', wanted).orWhereIn('slug', wanted))
    .select('id', 'slug', 'workspace_id');
  const usable = rows.filter((row) => row.workspace_id === null || row.workspace_id === workspaceId);
  const known = new Set(usable.flatMap((row) => [row.id, row.slug]));
  return wanted.filter((ref) => !known.has(ref));
}

/** Every config of the organisation at its latest version (slug and document), for reference checks on delete. */
export async function latestConfigDocuments(db: Knex | Knex.Transaction, organisationId: string): Promise<Array<{ slug: string; config: Record<string, unknown> }>> {
  const rows: Array<{ slug: string; config: unknown }> = await db('configs as c')
    .join('config_versions as v', (join) => join.on('v.config_id', 'c.id').andOn('v.version', 'c.version'))
    .where('c.organisation_id', organisationId)
    .select('c.slug', 'v.config');
  return rows.map((row) => ({ slug: row.slug, config: fromJson(row.config, {}) }));
}
