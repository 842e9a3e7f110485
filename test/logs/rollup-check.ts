import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { readMetadataRollupKeys } from '../../store/rollups/metadata-keys.js';
import { ALL_WORKSPACES, FACT_COLUMNS, MEASURES, ROLLUP_KEY, rollupDeltas, toFact } from '../../store/rollups/rollup-deltas.js';

function bins(value: unknown): Record<string, number> {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as Record<string, number>) : ((value ?? {}) as Record<string, number>);
  return Object.fromEntries(Object.entries(parsed).filter(([, n]) => Number(n) !== 0).map(([k, n]) => [k, Number(n)] as const).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The rollups hold exactly what the rolled-up log rows add up to: every rollup row, its counts,
 * sums and latency bins, recomputed from request_logs and compared with analytics_rollups.
 */
export async function assertRollupsMatchRows(db: Knex, what: string): Promise<number> {
  const rows = await db('request_logs').select([...FACT_COLUMNS]).where('rolled_up', true);
  const keys = await readMetadataRollupKeys(db);
  const expected = new Map(rollupDeltas(rows.map((row) => toFact(row, true)), 1, keys).map((delta) => [ROLLUP_KEY.map((c) => String(delta[c])).join('|'), delta]));
  const stored = await db('analytics_rollups').select('*');
  assert.equal(stored.length, expected.size, `${what}: ${stored.length} rollup rows stored, ${expected.size} expected from ${rows.length} log rows`);
  for (const row of stored as Array<Record<string, unknown>>) {
    const key = ROLLUP_KEY.map((c) => String(row[c])).join('|');
    const delta = expected.get(key);
    assert.ok(delta, `${what}: unexpected rollup row ${key}`);
    for (const measure of MEASURES) {
      const tolerance = measure === 'cost' || measure === 'cache_savings' ? 1e-9 * Math.max(1, Math.abs(delta[measure])) : 0;
      assert.ok(Math.abs(Number(row[measure]) - delta[measure]) <= tolerance, `${what}: ${key} ${measure} is ${row[measure]}, expected ${delta[measure]}`);
    }
    assert.deepEqual(bins(row.latency), bins(Object.fromEntries(delta.latency)), `${what}: ${key} latency bins`);
  }
  return stored.length;
}

/**
 * A write path counts its rows in the rollups: the rollups match the rows, and the all-workspaces
 * day rows of the `endpoint` set count every logged row of `endpoint` (there must be some).
 */
export async function assertEndpointRolledUp(db: Knex, endpoint: string, what: string): Promise<void> {
  await assertRollupsMatchRows(db, what);
  const logged = Number((await db('request_logs').where({ endpoint }).count({ n: '*' }))[0]!.n);
  const counted = await db('analytics_rollups').where({ dimension_set: 'endpoint', grain: 'day', workspace_id: ALL_WORKSPACES, endpoint }).sum({ n: 'requests' });
  assert.ok(logged > 0, `${what}: no ${endpoint} rows were logged`);
  assert.equal(Number(counted[0]?.n ?? 0), logged, `${what}: the rollups count every ${endpoint} row`);
}
