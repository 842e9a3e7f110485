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

/** Applies deltas through knex (callers hold the transaction that also writes or deletes the log rows). */
export async function applyRollupDeltas(trx: Knex | Knex.Transaction, deltas: readonly RollupDelta[]): Promise<void> {
  const dialect = dialectOf(trx as Knex);
  for (let i = 0; i < deltas.length; i += UPSERT_CHUNK) {
    const chunk = deltas.slice(i, i + UPSERT_CHUNK);
    await trx.raw(rollupUpsertSql(dialect, chunk.length), chunk.flatMap(rollupValues) as Knex.Value[]);
  }
}

/** Removes the rollup rows that deletes brought back to zero requests (a group with no requests left is no group). */
export async function pruneEmptyRollups(trx: Knex | Knex.Transaction, deltas: readonly RollupDelta[]): Promise<void> {
  const chunkSize = 400;
  for (let i = 0; i < deltas.length; i += chunkSize) {
    const chunk = deltas.slice(i, i + chunkSize);
    const tuple = `(${ROLLUP_KEY.map(() => '?').join(', ')})`;
    await trx.raw(
      `delete from analytics_rollups where requests = 0 and (${ROLLUP_KEY.join(', ')}) in (${chunk.map(() => tuple).join(', ')})`,
      chunk.flatMap((delta) => ROLLUP_KEY.map((column) => delta[column])),
    );
  }
}
