import type { Knex } from 'knex';
import { fromJson } from './json-column.js';

/**
 * Slugs of the workspaces whose `defaults.user_api_key_config` names this config (by id or slug).
 * The defaults JSON is read in code: the same query then works on SQLite text and Postgres jsonb.
 */
export async function workspacesDefaultingTo(db: Knex | Knex.Transaction, organisationId: string, config: { id: string; slug: string }): Promise<string[]> {
  const rows: Array<{ slug: string; defaults: unknown }> = await db('workspaces').where({ organisation_id: organisationId }).select('slug', 'defaults');
  return rows
    .filter((row) => {
      const ref = fromJson<Record<string, unknown>>(row.defaults, {}).user_api_key_config;
      return ref === config.id || ref === config.slug;
    })
    .map((row) => row.slug);
}
