import type { Knex } from 'knex';
import { dialectOf, type Dialect } from '../db.js';
import { MEASURES, ROLLUP_COLUMNS, ROLLUP_KEY, rollupValues, type RollupDelta } from './rollup-deltas.js';

/** Rows per upsert statement: ~27 values each stays well under either engine's bound-variable limit. */
const UPSERT_CHUNK = 500;

/**
 * Adds deltas to their rollup rows, creating the missing ones: counts and sums are added, the
 * latency bins merged key by key, all inside the upsert so two instances writing the same
 * bucket at once both count (the row lock orders them).
 */
export function rollupUpsertSql(dialect: Dialect, rows: number): string {
  const postgres = dialect === 'postgres';
  const one = `(${ROLLUP_COLUMNS.map((column) => (column === 'latency' && postgres ? '?::jsonb' : '?')).join(', ')})`;
  const sums = MEASURES.map((m) => `${m} = analytics_rollups.${m} + excluded.${m}`).join(', ');
  // Only the bins the delta names are touched: a small delta into a large day row stays cheap.
  const merged = postgres
    ? `analytics_rollups.latency || coalesce((select jsonb_object_agg(d.key, coalesce((analytics_rollups.latency ->> d.key)::bigint, 0) + d.value::bigint)
         from jsonb_each_text(excluded.latency) d), '{}'::jsonb)`
    : `json_patch(analytics_rollups.latency, coalesce((select json_group_object(d.key, coalesce(json_extract(analytics_rollups.latency, '$."' || d.key || '"'), 0) + d.value)
         from json_each(excluded.latency) d), '{}'))`;
  return `insert into analytics_rollups (${ROLLUP_COLUMNS.join(', ')}) values ${Array.from({ length: rows }, () => one).join(', ')}
    on conflict (${ROLLUP_KEY.join(', ')}) do update set ${sums}, latency = ${merged}`;
}

/** analytics_rollups' column types on Postgres, for the arrays unnest reads (see 240 and 300 migrations). */
const POSTGRES_TYPES: Record<(typeof ROLLUP_COLUMNS)[number], string> = {
  organisation_id: 'text', dimension_set: 'text', grain: 'text', bucket_start: 'bigint', workspace_id: 'text', dims_key: 'text',
  api_key_id: 'text', provider: 'text', model: 'text', status: 'integer', cache_status: 'text', endpoint: 'text', user_id: 'text',
  environment: 'text', end_organisation: 'text', prompt_id: 'text', prompt_version: 'integer', prompt_label: 'text',
  metadata_key: 'text', metadata_value: 'text',
  requests: 'bigint', errors: 'bigint', cost: 'float8', cache_savings: 'float8', prompt_tokens: 'bigint', completion_tokens: 'bigint',
  total_tokens: 'bigint', latency_sum: 'bigint', cache_hits: 'bigint', rescued: 'bigint', unpriced: 'bigint', latency: 'jsonb',
};

/**
 * The Postgres upsert of any number of deltas in one statement of fixed text: one array per
 * column, read back by unnest in the order given (the deltas' key order, so concurrent writers
 * lock rollup rows in one order and never deadlock). One prepared plan, ~30 parameters whatever
 * the count, where a VALUES list binds ~30 per row.
 */
const POSTGRES_UPSERT = `insert into analytics_rollups (${ROLLUP_COLUMNS.join(', ')})
  select * from unnest(${ROLLUP_COLUMNS.map((column) => `?::${POSTGRES_TYPES[column]}[]`).join(', ')})
  on conflict (${ROLLUP_KEY.join(', ')}) do update set ${MEASURES.map((m) => `${m} = analytics_rollups.${m} + excluded.${m}`).join(', ')},
  latency = analytics_rollups.latency || coalesce((select jsonb_object_agg(d.key, coalesce((analytics_rollups.latency ->> d.key)::bigint, 0) + d.value::bigint)
    from jsonb_each_text(excluded.latency) d), '{}'::jsonb)`;

function columnValue(delta: RollupDelta, column: (typeof ROLLUP_COLUMNS)[number]): unknown {
  if (column === 'latency') return JSON.stringify(Object.fromEntries(delta.latency));
  return delta[column as keyof RollupDelta] ?? null;
}

const ARRAY_QUOTED = /[\\"]/;

/**
 * A Postgres array literal, built here in one pass: pg would escape every element with two
 * regular expressions, and knex scan every array for undefined, a large part of a spread
 * import's fold. Texts quoted (backslash and double quote escaped), numbers as they are.
 */
function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i) out += ',';
    if (value === null || value === undefined) out += 'NULL';
    else if (typeof value === 'number') out += String(value);
    else {
      const text = String(value);
      out += `"${ARRAY_QUOTED.test(text) ? text.replace(/[\\"]/g, '\\$&') : text}"`;
    }
  }
  return `${out}}`;
}

/** Rows per unnest upsert: bounds one statement's arrays, not its parameter count. */
const POSTGRES_CHUNK = 5000;

/** Applies deltas through knex (callers hold the transaction that also writes or deletes the log rows). */
export async function applyRollupDeltas(trx: Knex | Knex.Transaction, deltas: readonly RollupDelta[]): Promise<void> {
  const dialect = dialectOf(trx as Knex);
  if (dialect === 'postgres') {
    for (let i = 0; i < deltas.length; i += POSTGRES_CHUNK) {
      const chunk = deltas.slice(i, i + POSTGRES_CHUNK);
      await trx.raw(POSTGRES_UPSERT, ROLLUP_COLUMNS.map((column) => arrayLiteral(chunk.map((delta) => columnValue(delta, column)))));
    }
    return;
  }
  for (let i = 0; i < deltas.length; i += UPSERT_CHUNK) {
    const chunk = deltas.slice(i, i + UPSERT_CHUNK);
    await trx.raw(rollupUpsertSql(dialect, chunk.length), chunk.flatMap(rollupValues) as Knex.Value[]);
  }
}

/**
 * Removes the rollup rows that deletes brought back to zero requests (a group with no requests
 * left is no group): per organisation, over the sets, grains and bucket range the deltas touched,
 * which the primary key finds by range.
 */
export async function pruneEmptyRollups(trx: Knex | Knex.Transaction, deltas: readonly RollupDelta[]): Promise<void> {
  const byOrganisation = new Map<string, { sets: Set<string>; grains: Set<string>; from: number; to: number }>();
  for (const delta of deltas) {
    const span = byOrganisation.get(delta.organisation_id) ?? { sets: new Set(), grains: new Set(), from: delta.bucket_start, to: delta.bucket_start };
    span.sets.add(delta.dimension_set);
    span.grains.add(delta.grain);
    span.from = Math.min(span.from, delta.bucket_start);
    span.to = Math.max(span.to, delta.bucket_start);
    byOrganisation.set(delta.organisation_id, span);
  }
  for (const [organisationId, span] of byOrganisation) {
    await trx('analytics_rollups')
      .where('organisation_id', organisationId)
      .whereIn('dimension_set', [...span.sets])
      .whereIn('grain', [...span.grains])
      .whereBetween('bucket_start', [span.from, span.to])
      .where('requests', 0)
      .del();
  }
}
