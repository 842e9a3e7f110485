/**
 * request_logs rows written by COPY ... FROM STDIN (text format) on Postgres: the cheapest way in
 * on both sides. gw sends one text per batch instead of one escaped array literal per column, and
 * Postgres inserts the rows in multi-row batches, where INSERT ... ON CONFLICT checks and inserts
 * row by row. COPY has no ON CONFLICT: a row already stored fails the whole COPY (unique_violation),
 * and the caller writes the batch again the conflict-safe way.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

type Row = Record<string, unknown>;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value as a COPY text field: \N for NULL, t/f for booleans, backslash escapes where needed. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  const text = typeof value === 'string' ? value : String(value);
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : text;
}

/** The rows (all with `columns`) as COPY text: a tab between fields, a newline after each row. */
function copyText(rows: readonly Row[], columns: readonly string[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < columns.length; i++) text += (i ? '\t' : '') + copyField(row[columns[i]!]);
    text += '\n';
  }
  return text;
}

/** Postgres' code for a duplicate key: some row of the batch is stored already. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** COPYs the rows into request_logs on `db`'s connection (a transaction's own, when `db` is one). */
export async function copyLogRows(db: Knex | Knex.Transaction, rows: readonly Row[]): Promise<void> {
  const columns = Object.keys(rows[0]!);
  const connection = (await db.client.acquireConnection()) as pg.PoolClient;
  try {
    const sql = `copy request_logs (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`;
    await pipeline(Readable.from([Buffer.from(copyText(rows, columns))]), connection.query(copyFrom(sql)));
  } finally {
    await db.client.releaseConnection(connection);
  }
}
