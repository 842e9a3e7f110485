import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

// The columns as they are at this migration (a later one may add some): fixed here, not imported.
const GROUP = ['organisation_id', 'dimension_set', 'workspace_id', 'dims_key'];
const ROLLUP_DIMENSIONS = ['api_key_id', 'provider', 'model', 'status', 'cache_status', 'endpoint', 'user_id', 'environment', 'end_organisation', 'prompt_id', 'prompt_version', 'prompt_label'];
const MEASURES = ['requests', 'errors', 'cost', 'cache_savings', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'latency_sum', 'cache_hits', 'rescued', 'unpriced'];

/**
 * Adds rollup rows of grain `to` (`size` ms long, from the epoch) made of the rows of grain `from`
 * already counted: sums added, latency bins merged bin by bin.
 */
export async function foldGrain(knex: Knex | Knex.Transaction, from: string, to: string, size: number): Promise<void> {
  const postgres = dialectOf(knex as Knex) === 'postgres';
  const bucket = `(r.bucket_start / ${size}) * ${size}`;
  const keys = [...GROUP.map((c) => `r.${c}`), `${bucket}`];
  const names = [...GROUP, 'bucket_start'];
  const binObject = postgres ? `jsonb_object_agg(bin, n)` : `json_group_object(bin, n)`;
  const each = postgres ? `jsonb_each_text(r.latency) b` : `json_each(r.latency) b`;
  const value = postgres ? 'b.value::bigint' : 'b.value';
  await knex.raw(
    `insert into analytics_rollups (${[...names, 'grain', ...ROLLUP_DIMENSIONS, ...MEASURES, 'latency'].join(', ')})
     with sums as (
       select ${keys.map((k, i) => `${k} as ${names[i]}`).join(', ')}, ${ROLLUP_DIMENSIONS.map((d) => `max(r.${d}) as ${d}`).join(', ')}, ${MEASURES.map((m) => `sum(r.${m}) as ${m}`).join(', ')}
       from analytics_rollups r where r.grain = ? group by ${keys.join(', ')}
     ), bins as (
       select ${keys.map((k, i) => `${k} as ${names[i]}`).join(', ')}, b.key as bin, sum(${value}) as n
       from analytics_rollups r, ${each} where r.grain = ? group by ${keys.join(', ')}, b.key
     ), sketches as (
       select ${names.join(', ')}, ${binObject} as latency from bins group by ${names.join(', ')}
     )
     select ${names.map((c) => `s.${c}`).join(', ')}, ?, ${ROLLUP_DIMENSIONS.map((d) => `s.${d}`).join(', ')}, ${MEASURES.map((m) => `s.${m}`).join(', ')}, coalesce(k.latency, ${postgres ? `'{}'::jsonb` : `'{}'`})
     from sums s left join sketches k on ${names.map((c) => `k.${c} = s.${c}`).join(' and ')}`,
    [from, from, to],
  );
}

/**
 * Rollups gain week buckets (every set) and quarter-hour buckets (the workspace totals, beside
 * their minutes): store/rollups/dimensions.ts. Built here from the day and minute rows already
 * counted, so answers stay fast through the upgrade without a backfill.
 */
export async function up(knex: Knex): Promise<void> {
  await foldGrain(knex, 'day', 'week', 7 * 86_400_000);
  await foldGrain(knex, 'minute', 'quarter', 900_000);
}

export async function down(knex: Knex): Promise<void> {
  await knex('analytics_rollups').whereIn('grain', ['week', 'quarter']).del();
}
