import type { Knex } from 'knex';

/**
 * The guardrail ids or slugs among `refs` that name no guardrail of the organisation. Guardrails
 * get their table in a later migration: until it exists no guardrail exists, so every ref is unknown.
 */
export async function unknownGuardrailRefs(db: Knex | Knex.Transaction, organisationId: string, refs: string[]): Promise<string[]> {
  const wanted = [...new Set(refs)];
  if (!wanted.length) return [];
  if (!(await db.schema.hasTable('guardrails'))) return wanted;
  const rows: Array<{ id: string; slug: string | null }> = await db('guardrails')
    .where({ organisation_id: organisationId })
    .andWhere((q) => q.whereIn('id', wanted).orWhereIn('slug', wanted))
    .select('id', 'slug');
  const known = new Set(rows.flatMap((row) => [row.id, row.slug]));
  return wanted.filter((ref) => !known.has(ref));
}
