import type { Knex } from 'knex';

/**
 * Does the workspace hold shared prompts or partials? Prompts are not part of gw yet: this reads
 * the `prompts` and `prompt_partials` tables only once a migration creates them, and counts rows
 * of the workspace that are shared (an `is_shared` column) or, without that column, any row.
 */
export async function hasSharedPromptsOrPartials(db: Knex | Knex.Transaction, workspaceId: string): Promise<boolean> {
  for (const table of ['prompts', 'prompt_partials']) {
    if (!(await db.schema.hasTable(table))) continue;
    const query = db(table).where({ workspace_id: workspaceId });
    if (await db.schema.hasColumn(table, 'is_shared')) query.andWhere({ is_shared: true });
    if (await query.first()) return true;
  }
  return false;
}
