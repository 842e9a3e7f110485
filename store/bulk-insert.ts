/**
 * Many-row inserts for write-heavy tables (request logs). On Postgres: multi-row INSERTs in
 * chunks. On SQLite: one prepared single-row statement, cached per connection, run for every row
 * inside one transaction. Building and preparing a 400-row INSERT each batch (knex's way) costs
 * about three times as much per row, and on SQLite that time blocks the gateway's event loop.
 */
import type { Knex } from 'knex';
import { dialectOf } from './db.js';

type Row = Record<string, unknown>;

interface SqliteStatement {
  run(...values: unknown[]): unknown;
}
interface SqliteConnection {
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

export function insertSql(table: string, columns: readonly string[]): string {
  const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values (${columns.map(() => '?').join(', ')})`;
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

export async function insertRows(db: Knex | Knex.Transaction, table: string, rows: Row[], chunkSize: number): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]!);
  // A caller's transaction owns the connection; rows of differing shapes need knex's column union.
  if (dialectOf(db) !== 'sqlite' || (db as Knex.Transaction).isTransaction || !sameColumns(rows, columns)) {
    const write = async (trx: Knex | Knex.Transaction) => {
      for (let i = 0; i < rows.length; i += chunkSize) await trx(table).insert(rows.slice(i, i + chunkSize));
    };
    if (rows.length <= chunkSize || (db as Knex.Transaction).isTransaction) await write(db);
    else await (db as Knex).transaction(write);
    return;
  }
  const sql = insertSql(table, columns);
  const connection = (await db.client.acquireConnection()) as SqliteConnection;
  try {
    const statement = statementFor(connection, sql);
    connection.transaction(() => {
      for (const row of rows) statement.run(...columns.map((column) => sqliteValue(row[column])));
    })();
  } finally {
    await db.client.releaseConnection(connection);
  }
}
