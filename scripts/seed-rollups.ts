/**
 * Builds the rollups of seeded log rows inside Postgres (scripts/copy-seed.ts, for the timings):
 * each set's finest buckets grouped from request_logs in one statement, the coarser buckets
 * folded from them, as the writers would have left them (same dims_key, sums and latency bins
 * as store/rollups/rollup-deltas.ts). Ten times faster than computing them in JavaScript and
 * copying them in, which took an hour for 10 million rows on a loaded 2-core machine.
 */
import type { Knex } from 'knex';
import { GRAIN_MS, ROLLUP_DIMENSIONS, ROLLUP_SETS, type Grain, type RollupSet } from '../store/rollups/dimensions.js';
import { binSql } from '../store/rollups/latency-sketch.js';
import { METADATA_VALUE_MAX_LENGTH, OTHER_VALUE, setMetadataRollupKeys } from '../store/rollups/metadata-keys.js';
import { ALL_WORKSPACES, MEASURES } from '../store/rollups/rollup-deltas.js';

const DIMENSION_COLUMNS = [...ROLLUP_DIMENSIONS, 'metadata_key', 'metadata_value'];

const BIN = `coalesce(${binSql('l.latency_ms')}::text, 'z')`;

/** JSON.stringify of one value, as dims_key holds it. */
const json = (expression: string) => `coalesce(to_json(${expression})::text, 'null')`;

/** One statement per set (and per listed metadata key): its finest buckets, grouped per bin first, then per row. */
async function finest(db: Knex, set: RollupSet, values: Array<[string, string]>): Promise<void> {
  const grain = set.grains[set.grains.length - 1]!;
  const size = GRAIN_MS[grain];
  const dimsKey = values.length ? `'[' || ${values.map(([, expression]) => json(expression)).join(` || ',' || `)} || ']'` : `'[]'`;
  const dims = values.map(([column, expression]) => `${expression} as ${column}`);
  await db.raw(
    `insert into analytics_rollups (organisation_id, dimension_set, grain, bucket_start, workspace_id, dims_key, ${values.map(([c]) => c).concat(MEASURES, 'latency').join(', ')})
     with per_bin as (
       select l.organisation_id, w.ws as workspace_id, (l.created_at / ${size}) * ${size} as bucket_start, ${dimsKey} as dims_key,
         ${dims.map((d) => `${d}, `).join('')}${BIN} as bin, count(*) as requests,
         sum(case when l.is_error then 1 else 0 end) as errors, sum(case when l.cache_hit then 0 else l.cost end) as cost,
         sum(case when l.cache_hit then l.cost else 0 end) as cache_savings, sum(l.prompt_tokens) as prompt_tokens,
         sum(l.completion_tokens) as completion_tokens, sum(l.total_tokens) as total_tokens, sum(l.latency_ms) as latency_sum,
         sum(case when l.cache_hit then 1 else 0 end) as cache_hits, sum(case when l.rescued then 1 else 0 end) as rescued,
         sum(case when l.cost_unpriced then 1 else 0 end) as unpriced
       from request_logs l cross join lateral (values (l.workspace_id), ('${ALL_WORKSPACES}')) as w(ws)
       group by 1, 2, 3, 4, ${values.map((_, i) => `${5 + i}, `).join('')}${5 + values.length}
     )
     select organisation_id, '${set.name}', '${grain}', bucket_start, workspace_id, dims_key, ${values.map(([c]) => `max(${c})`).join(', ')}${values.length ? ', ' : ''}
       ${MEASURES.map((m) => `sum(${m})`).join(', ')}, jsonb_object_agg(bin, requests)
     from per_bin group by organisation_id, workspace_id, bucket_start, dims_key`,
  );
}

/** The rows of grain `to` made of those of grain `from` already built (sums added, bins merged). */
async function fold(db: Knex, set: RollupSet, from: Grain, to: Grain): Promise<void> {
  const size = GRAIN_MS[to];
  await db.raw(
    `insert into analytics_rollups (organisation_id, workspace_id, bucket_start, dims_key, dimension_set, grain, ${DIMENSION_COLUMNS.join(', ')}, ${MEASURES.join(', ')}, latency)
     with rows as (select * from analytics_rollups where dimension_set = ? and grain = ?),
     sums as (
       select organisation_id, workspace_id, (bucket_start / ${size}) * ${size} as bucket_start, dims_key,
         ${DIMENSION_COLUMNS.map((d) => `max(${d}) as ${d}`).join(', ')}, ${MEASURES.map((m) => `sum(${m}) as ${m}`).join(', ')}
       from rows group by 1, 2, 3, 4),
     sketches as (
       select organisation_id, workspace_id, bucket_start, dims_key, jsonb_object_agg(bin, n) as latency from (
         select organisation_id, workspace_id, (bucket_start / ${size}) * ${size} as bucket_start, dims_key, b.key as bin, sum(b.value::bigint) as n
         from rows, jsonb_each_text(rows.latency) b group by 1, 2, 3, 4, 5) per_bin
       group by 1, 2, 3, 4)
     select s.organisation_id, s.workspace_id, s.bucket_start, s.dims_key, ?, ?, ${DIMENSION_COLUMNS.map((d) => `s.${d}`).join(', ')}, ${MEASURES.map((m) => `s.${m}`).join(', ')}, k.latency
     from sums s join sketches k using (organisation_id, workspace_id, bucket_start, dims_key)`,
    [set.name, from, set.name, to],
  );
}

/**
 * Empties analytics_rollups and builds every set's rows from request_logs, the listed metadata
 * keys counted from the start (setMetadataRollupKeys with counted_from 0).
 */
export async function buildRollupsInSql(db: Knex, metadataKeys: readonly string[], log: (line: string) => void): Promise<void> {
  await db.raw('truncate analytics_rollups');
  await setMetadataRollupKeys(db, [], 0);
  await setMetadataRollupKeys(db, metadataKeys, 0);
  await db.raw(`set work_mem = '256MB'`);
  for (const set of ROLLUP_SETS) {
    const started = performance.now();
    const builds: Array<Array<[string, string]>> =
      set.name === 'metadata'
        ? metadataKeys.map((key) => {
            const value = `l.metadata -> '${key}'`;
            const kept = `case when ${value} is null or jsonb_typeof(${value}) = 'null' then null
              when jsonb_typeof(${value}) = 'string' and length(${value} #>> '{}') <= ${METADATA_VALUE_MAX_LENGTH} then ${value} #>> '{}' else '${OTHER_VALUE}' end`;
            return [['metadata_key', `'${key}'::text`], ['metadata_value', kept]];
          })
        : [set.dimensions.map((d) => [d, `l.${d}`])];
    for (const values of builds) await finest(db, set, values);
    // Minutes fold into quarters and hours, hours into days, days into weeks.
    const grains = [...set.grains].reverse();
    for (let i = 1; i < grains.length; i++) await fold(db, set, grains[i] === 'quarter' || grains[i] === 'hour' ? 'minute' : grains[i - 1]!, grains[i]!);
    log(`  rollups of ${set.name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
