import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

// The columns as they are at this migration (a later one may add some): fixed here, not imported.
const ALL_WORKSPACES = '*';
const ROLLUP_KEY = ['organisation_id', 'dimension_set', 'grain', 'bucket_start', 'workspace_id', 'dims_key'];
const ROLLUP_DIMENSIONS = ['api_key_id', 'provider', 'model', 'status', 'cache_status', 'endpoint', 'user_id', 'environment', 'end_organisation', 'prompt_id', 'prompt_version', 'prompt_label'];
const MEASURES = ['requests', 'errors', 'cost', 'cache_savings', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'latency_sum', 'cache_hits', 'rescued', 'unpriced'];

/**
 * Rollups gain all-workspaces rows (workspace_id `*`, store/rollups/rollup-deltas.ts), which
 * answer every analytics call without a workspace filter. Built here from the per-workspace
 * rows already counted (sums added, latency bins merged bin by bin), so analytics stay fast
 * through the upgrade without a backfill.
 */
export async function addAllWorkspaceRows(knex: Knex | Knex.Transaction): Promise<void> {
  const postgres = dialectOf(knex as Knex) === 'postgres';
  const sameRow = ROLLUP_KEY.filter((c) => c !== 'workspace_id').map((c) => `r2.${c} = r.${c}`).join(' and ');
  const bins = postgres
    ? `(select coalesce(jsonb_object_agg(k, n), '{}'::jsonb) from (select b.key as k, sum(b.value::bigint) as n
         from analytics_rollups r2, jsonb_each_text(r2.latency) b where ${sameRow} and r2.workspace_id <> ? group by b.key) x)`
    : `(select coalesce(json_group_object(k, n), '{}') from (select b.key as k, sum(b.value) as n
         from analytics_rollups r2, json_each(r2.latency) b where ${sameRow} and r2.workspace_id <> ? group by b.key) x)`;
  const grouped = ROLLUP_KEY.filter((c) => c !== 'workspace_id');
  const columns = [...grouped, 'workspace_id', ...ROLLUP_DIMENSIONS, ...MEASURES, 'latency'];
  const values = [
    ...grouped.map((c) => `r.${c}`),
    '?',
    // A row's dimension values follow from its dims_key: one value per group.
    ...ROLLUP_DIMENSIONS.map((d) => `max(r.${d})`),
    ...MEASURES.map((m) => `sum(r.${m})`),
    bins,
  ];
  await knex.raw(
    `insert into analytics_rollups (${columns.join(', ')})
     select ${values.join(', ')} from analytics_rollups r where r.workspace_id <> ? group by ${grouped.map((c) => `r.${c}`).join(', ')}`,
    [ALL_WORKSPACES, ALL_WORKSPACES, ALL_WORKSPACES],
  );
}

export async function up(knex: Knex): Promise<void> {
  await addAllWorkspaceRows(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex('analytics_rollups').where('workspace_id', ALL_WORKSPACES).del();
}
