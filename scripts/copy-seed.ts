/**
 * Seeds synthetic request logs into Postgres with COPY (scripts/time-analytics.ts uses it for
 * 1 and 10 million rows): the log rows, then their rollups computed here from the same
 * deterministic rows, as the writers would have left them (`env` a listed metadata key). Indexes are dropped for the load and
 * built again after it, several times faster than keeping them up row by row, and the two bulk
 * tables are unlogged (the schema is thrown away after the timings).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import knexFactory, { type Knex } from 'knex';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { toLogRow } from '../store/repositories/request-logs.js';
import { GRAIN_MS, ROLLUP_SETS, type RollupSet } from '../store/rollups/dimensions.js';
import { setMetadataRollupKeys } from '../store/rollups/metadata-keys.js';
import { addInto, keyOf, ROLLUP_COLUMNS, rollupDeltas, rollupValues, toFact, type RollupDelta } from '../store/rollups/rollup-deltas.js';
import { newSeedIds, openSeedDb, syntheticEntries, type SeededLogs } from './seed-logs.js';

/** The arbitrary metadata keys the seeded rollups hold (every synthetic row has `env`). */
export const SEED_METADATA_KEYS = ['env'];

const CHUNK = 10_000;

/** One value in COPY's text format. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

async function copyInto(client: PoolClient, table: string, columns: readonly string[], lines: AsyncIterable<string>): Promise<void> {
  const stream = client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`));
  await pipeline(Readable.from(lines), stream);
}

/** Drops the table's indexes and primary key; answers the statements that build them again. */
async function dropIndexes(db: Knex, table: string): Promise<string[]> {
  const constraints = (await db.raw(`select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ?::regclass and contype = 'p'`, [table])).rows as Array<{ conname: string; def: string }>;
  const indexes = (await db.raw(
    `select indexname, indexdef from pg_indexes where tablename = ? and schemaname = current_schema() and indexname not in (select conname from pg_constraint where conrelid = ?::regclass)`,
    [table, table],
  )).rows as Array<{ indexname: string; indexdef: string }>;
  for (const { conname } of constraints) await db.raw(`alter table ${table} drop constraint "${conname}"`);
  for (const { indexname } of indexes) await db.raw(`drop index "${indexname}"`);
  return [...constraints.map(({ conname, def }) => `alter table ${table} add constraint "${conname}" ${def}`), ...indexes.map(({ indexdef }) => indexdef)];
}

export async function copySeed(db: Knex, rows: number, ids: SeededLogs): Promise<void> {
  const phase = (name: string, started: number) => console.log(`  ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  let started = performance.now();
  // A throwaway schema: no WAL for its bulk tables (reads are unchanged; a crash would empty them).
  await db.raw('alter table request_logs set unlogged');
  await db.raw('alter table analytics_rollups set unlogged');
  const rebuild = [...(await dropIndexes(db, 'request_logs')), ...(await dropIndexes(db, 'analytics_rollups'))];
  const client = (await db.client.acquireConnection()) as PoolClient;
  try {
    let columns: string[] = [];
    const first = syntheticEntries(rows, ids, 1).next().value;
    if (first) columns = [...Object.keys(toLogRow(first[0]!, 'gateway')), 'rolled_up'];
    await copyInto(client, 'request_logs', columns, (async function* () {
      let done = 0;
      for (const chunk of syntheticEntries(rows, ids, CHUNK)) {
        done += chunk.length;
        if (done % 1_000_000 === 0) console.log(`  ${done.toLocaleString()} of ${rows.toLocaleString()} log rows sent`);
        yield chunk.map((entry) => {
          const row: Record<string, unknown> = { ...toLogRow(entry, 'gateway'), rolled_up: true };
          return columns.map((column) => copyValue(row[column])).join('\t') + '\n';
        }).join('');
      }
    })());
    phase('logs copied', started);
  } finally {
    await db.client.releaseConnection(client);
  }
  started = performance.now();
  await copyRollups(db, rows, ids);
  phase('rollups copied', started);
  for (const statement of rebuild) {
    started = performance.now();
    await db.raw(statement);
    phase(statement.slice(0, 60), started);
  }
}

/** Which slice of the seeded range a rollup pass counts: part `part` of `parts`, cut at week boundaries (no bucket spans two). */
export interface RollupSlice {
  part: number;
  parts: number;
  /** Only these sets (default all). */
  sets?: readonly RollupSet[];
}

function sliceRange(ids: SeededLogs, slice: RollupSlice): [number, number] {
  const week = GRAIN_MS.week;
  const cut = (i: number) => (i <= 0 ? -Infinity : i >= slice.parts ? Infinity : Math.floor((ids.start + ((ids.end - ids.start) * i) / slice.parts) / week) * week);
  return [cut(slice.part - 1), cut(slice.part)];
}

/**
 * COPYs the rollups of the seeded rows (of one slice of the range, when given: several processes
 * can share the work), `env` counted as a listed metadata key from the start.
 */
export async function copyRollups(db: Knex, rows: number, ids: SeededLogs, slice: RollupSlice = { part: 1, parts: 1 }): Promise<void> {
  await setMetadataRollupKeys(db, SEED_METADATA_KEYS, 0);
  const keys = new Map(SEED_METADATA_KEYS.map((key) => [key, 0]));
  const [from, to] = sliceRange(ids, slice);
  const client = (await db.client.acquireConnection()) as PoolClient;
  try {
    // Entries come oldest first, so a bucket is complete once the rows pass its end.
    await copyInto(client, 'analytics_rollups', ROLLUP_COLUMNS, (async function* () {
      const open = new Map<string, RollupDelta>();
      const line = (delta: RollupDelta) => rollupValues(delta).map(copyValue).join('\t') + '\n';
      for (const chunk of syntheticEntries(rows, ids, CHUNK)) {
        const mine = chunk.filter((entry) => entry.created_at >= from && entry.created_at < to);
        if (!mine.length) continue;
        for (const delta of rollupDeltas(mine.map((entry) => toFact(toLogRow(entry, 'gateway'), true)), 1, keys, slice.sets)) {
          const key = keyOf(delta);
          const into = open.get(key);
          if (into) addInto(into, delta);
          else open.set(key, delta);
        }
        const now = mine[mine.length - 1]!.created_at;
        let out = '';
        for (const [key, delta] of open) {
          if (delta.bucket_start + GRAIN_MS[delta.grain] > now) continue;
          out += line(delta);
          open.delete(key);
        }
        if (out) yield out;
      }
      yield [...open.values()].map(line).join('');
    })());
  } finally {
    await db.client.releaseConnection(client);
  }
}

/**
 * The sets the timings read (scripts/time-analytics.ts): what --rollups builds again, so a change
 * to the rollups is timed at 10 million rows without an hour of computing sets no call reads.
 */
export const TIMED_SETS = ROLLUP_SETS.filter((set) => ['workspace', 'api_key', 'model', 'status', 'cache_status', 'user', 'core', 'metadata'].includes(set.name));

/** Builds (a slice of) the rollups of a seeded schema again, the log rows kept: `--rollups` after a change to what they hold. */
export async function rebuildRollups(db: Knex, rows: number, ids: SeededLogs, slice: RollupSlice): Promise<void> {
  const started = performance.now();
  const [from, to] = sliceRange(ids, slice);
  const rebuilt = db('analytics_rollups').where('bucket_start', '>=', Math.max(from, 0)).where('bucket_start', '<', Math.min(to, 8.64e15));
  await (slice.sets ? rebuilt.whereIn('dimension_set', slice.sets.map((set) => set.name)) : rebuilt).del();
  await copyRollups(db, rows, ids, slice);
  console.log(`  rollups part ${slice.part} of ${slice.parts} built again: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The schema a size is seeded into and kept in, so a later run times it again without seeding. */
export function schemaFor(rows: number): string {
  return `analytics_bench_${rows}`;
}

/**
 * Opens the schema holding `rows` seeded rows, seeding it first when it does not hold them (or
 * when `force`): a seed that was interrupted left no `bench_seed` row, so it is started again.
 */
export async function seededSchema(url: string, rows: number, force: boolean): Promise<{ db: Knex; ids: SeededLogs }> {
  const schema = schemaFor(rows);
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const done = (await admin.raw(`select to_regclass(?) as t`, [`"${schema}".bench_seed`])).rows[0].t
      ? ((await admin.raw(`select ids from "${schema}".bench_seed where rows = ?`, [rows])).rows[0]?.ids as SeededLogs | undefined)
      : undefined;
    if (done && !force) {
      console.log(`schema ${schema} already holds ${rows.toLocaleString()} seeded rows (--force to seed again)`);
      return { db: await openSeedDb(url, schema), ids: done };
    }
    await admin.raw(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.destroy();
  }
  const db = await openSeedDb(url, schema);
  const started = performance.now();
  const ids = newSeedIds();
  await copySeed(db, rows, ids);
  await db.raw('vacuum analyze request_logs');
  await db.raw('vacuum analyze analytics_rollups');
  await db.raw('create table bench_seed (rows bigint not null, ids jsonb not null)');
  await db('bench_seed').insert({ rows, ids: JSON.stringify(ids) });
  const rollups = Number((await db('analytics_rollups').count({ n: '*' }))[0]!.n);
  console.log(`seeded ${rows.toLocaleString()} rows (${rollups.toLocaleString()} rollup rows) into ${schema} with COPY in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { db, ids };
}
