/**
 * Writes a batch of request-log rows and their rollup deltas in one transaction, on either
 * engine. A row whose id is already stored is skipped and adds nothing: a batch written again
 * after a lost acknowledgement, a crash or a retry counts once. The rollups are computed from
 * the rows the insert actually added. On a data plane (`outbox`) the ids the insert added also go
 * into `log_outbox` in that transaction, for the log shipper (gateway/deployment/data-plane.ts);
 * elsewhere nothing more is written.
 *
 * On Postgres: one COPY of the rows (log-copy.ts), then one upsert of the batch's rollup deltas, folded
 * per rollup row and in key order: four round trips (with BEGIN and COMMIT) whatever the batch size, one
 * COPY alone for rows left to the rollup folder. A batch partly stored already fails the COPY and is
 * written again by one INSERT ... SELECT FROM unnest(one array per column) ON CONFLICT DO NOTHING RETURNING id.
 * On SQLite (the writer thread, or the main connection): one prepared single-row statement,
 * cached per connection, run for every row; building and preparing a 400-row INSERT each batch
 * (knex's way) costs about three times as much per row.
 */
import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { FACT_COLUMNS, rollupValues, rowDeltas } from './rollups/rollup-deltas.js';
import { applyRollupDeltas, rollupUpsertSql } from './rollups/rollup-write.js';
import { METADATA_KEYS_SQL, metadataKeysFromRows, writerMetadataRollupKeys } from './rollups/metadata-keys.js';
import { copyLogRows, isUniqueViolation } from './log-copy.js';

type Row = Record<string, unknown>;

interface SqliteStatement {
  run(...values: unknown[]): { changes: number };
  all(...values: unknown[]): unknown[];
}
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  transaction(fn: () => void): () => void;
}

const statements = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

function statementFor(connection: SqliteConnection, sql: string): SqliteStatement {
  let cache = statements.get(connection);
  if (!cache) statements.set(connection, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = connection.prepare(sql)));
  return statement;
}

function insertLogSql(columns: readonly string[]): string {
  const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return `insert into request_logs (${columns.map(quoted).join(', ')}) values (${columns.map(() => '?').join(', ')}) on conflict (id) do nothing`;
}

/** What better-sqlite3 can bind: booleans as 0/1, dates as epoch ms, undefined as NULL, as knex's SQLite client does. */
export function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  return value;
}

export function sameColumns(rows: Row[], columns: string[]): boolean {
  return rows.every((row) => {
    const keys = Object.keys(row);
    return keys.length === columns.length && keys.every((key, i) => key === columns[i]);
  });
}

const OUTBOX_SQL = 'insert into log_outbox (log_id) values (?) on conflict (log_id) do nothing';

export interface LogWriteOptions {
  /** Data-plane mode: queue each added row's id for shipping to the control plane. */
  outbox: boolean;
  /**
   * false, on Postgres: the rows are stored not rolled up and no rollup is touched; the rollup
   * folder counts them later, many at a time (gateway/logs/rollup-backfill-job.ts). Analytics stay
   * exact meanwhile (they read rows not rolled up raw). For bulk imports, whose rows spread over
   * many buckets. SQLite rolls them up at once all the same: its upserts cost no round trip, and a
   * fold would hold its one writer against the next import.
   */
  rollUp?: boolean;
}

/** Rows already as bindable values (the writer thread receives them so); one transaction, synchronous. */
export function writeLogRowsSqlite(connection: SqliteConnection, columns: readonly string[], rows: readonly unknown[][], options: LogWriteOptions): void {
  const insert = statementFor(connection, insertLogSql(columns));
  const upsert = statementFor(connection, rollupUpsertSql('sqlite', 1));
  const outbox = options.outbox ? statementFor(connection, OUTBOX_SQL) : undefined;
  const idAt = columns.indexOf('id');
  const listedKeys = statementFor(connection, METADATA_KEYS_SQL);
  connection.transaction(() => {
    const added: unknown[][] = [];
    for (const values of rows) {
      if (!insert.run(values).changes) continue;
      outbox?.run(values[idAt]);
      added.push(values);
    }
    if (!added.length || options.rollUp === false) return;
    // Read once the inserts hold the write lock: a read first would have to upgrade its lock, which SQLite refuses while another writer waits.
    const metadataKeys = metadataKeysFromRows(listedKeys.all() as Array<{ key: string; counted_from: unknown }>);
    for (const delta of rowDeltas(factRows(columns, added), 1, metadataKeys)) upsert.run(rollupValues(delta));
  })();
}

/** Rows of bindable values as objects of the columns the rollups read (FACT_COLUMNS), not of every column. */
function factRows(columns: readonly string[], rows: readonly unknown[][]): Row[] {
  const at = FACT_COLUMNS.map((column) => columns.indexOf(column));
  return rows.map((values) => {
    const row: Row = {};
    for (let i = 0; i < at.length; i += 1) if (at[i]! >= 0) row[FACT_COLUMNS[i]!] = values[at[i]!];
    return row;
  });
}

/** Writes log rows (toLogRow's shape, all with the same columns) and their rollups. */
export async function writeLogRows(db: Knex | Knex.Transaction, rows: Row[], options: LogWriteOptions): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]!);
  if (!sameColumns(rows, columns)) throw new Error('log rows differ in their columns');
  if (dialectOf(db as Knex) === 'sqlite') {
    const marked: Row[] = rows.map((row) => ({ ...row, rolled_up: true }));
    // Inside a caller's transaction this is that transaction's connection (better-sqlite3 nests with a savepoint).
    const connection = (await db.client.acquireConnection()) as SqliteConnection;
    try {
      const all = [...columns, 'rolled_up'];
      writeLogRowsSqlite(connection, all, marked.map((row: Row) => all.map((column) => sqliteValue(row[column]))), { ...options, rollUp: true });
    } finally {
      await db.client.releaseConnection(connection);
    }
    return;
  }
  const marked: Row[] = rows.map((row) => ({ ...row, rolled_up: options.rollUp !== false }));
  const inCallersTransaction = (db as Knex.Transaction).isTransaction === true;
  // A batch written for the first time goes in by COPY; one that is partly stored already (a retry
  // after a lost acknowledgement, a spool written back) fails it and is written again row by row.
  const write = (copy: boolean) => async (trx: Knex | Knex.Transaction) => {
    let added = marked;
    if (copy) await copyLogRows(trx, marked);
    else {
      const addedIds = await insertRowsPostgres(trx as Knex.Transaction, marked);
      const kept = new Set(addedIds);
      if (addedIds.length < marked.length) added = marked.filter((row) => kept.has(row.id as string));
    }
    if (options.outbox && added.length) await trx.raw('insert into log_outbox (log_id) select * from unnest(?::text[]) on conflict (log_id) do nothing', [added.map((row) => row.id as string)]);
    if (options.rollUp === false) return;
    await applyRollupDeltas(trx, rowDeltas(added, 1, await writerMetadataRollupKeys(trx)));
  };
  // Inside a caller's transaction a failed COPY would abort it: there the conflict-safe insert only.
  if (inCallersTransaction) return write(false)(db as Knex.Transaction);
  // Rows alone (an import stored for the rollup folder): one COPY is atomic by itself, no BEGIN/COMMIT.
  const alone = options.rollUp === false && !options.outbox;
  try {
    if (alone) await write(true)(db);
    else await (db as Knex).transaction(write(true));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await (db as Knex).transaction(write(false));
  }
}

/** request_logs' column types on Postgres, read once per connection pool (migrations decide them). */
const columnTypes = new WeakMap<object, Promise<Map<string, string>>>();

function postgresColumnTypes(trx: Knex.Transaction): Promise<Map<string, string>> {
  const client = trx.client as object;
  let types = columnTypes.get(client);
  if (!types) {
    types = trx
      .raw(`select column_name, udt_name from information_schema.columns where table_name = 'request_logs' and table_schema = current_schema()`)
      .then((answer: { rows: Array<{ column_name: string; udt_name: string }> }) => new Map(answer.rows.map((row) => [row.column_name, row.udt_name])));
    types.catch(() => columnTypes.delete(client));
    columnTypes.set(client, types);
  }
  return types;
}

/**
 * One INSERT for any number of rows: one array per column, unnested, so the statement's text and
 * plan are the same for every batch and it binds ~45 parameters, not 45 per row. Answers the ids
 * it added (a row already stored is skipped).
 */
async function insertRowsPostgres(trx: Knex.Transaction, rows: Row[]): Promise<string[]> {
  const types = await postgresColumnTypes(trx);
  const columns = Object.keys(rows[0]!);
  const arrays = columns.map((column) => {
    if (!types.has(column)) throw new Error(`request_logs has no column ${column}`);
    return rows.map((row) => row[column] ?? null);
  });
  const sql = `insert into request_logs (${columns.map((c) => `"${c}"`).join(', ')})
    select * from unnest(${columns.map((c) => `?::${types.get(c)}[]`).join(', ')}) on conflict (id) do nothing returning id`;
  const answer = (await trx.raw(sql, arrays as Knex.Value[])) as { rows: Array<{ id: string }> };
  return answer.rows.map((row) => row.id);
}
