/**
 * Request logs shipped from a data plane to its control plane. The data plane reads its rows in
 * the order SQLite stored them (rowid: one writer at a time, so a row can never be committed
 * behind the cursor, which ids stamped at request start could be); the control plane stores them
 * under the deployment's organisation, each id once.
 */
import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { writeLogRows } from './log-batch-write.js';

type Row = Record<string, unknown>;

export interface ShippableLogs {
  rows: Row[];
  /** The cursor after these rows (the last rowid); unchanged when there were none. */
  cursor: number;
}

/** Data plane: up to `limit` rows stored after `cursor`. */
export async function readLogsAfter(db: Knex, cursor: number, limit: number): Promise<ShippableLogs> {
  if (dialectOf(db) !== 'sqlite') throw new Error('request logs are shipped only from a data plane on the SQLite store');
  const rows = (await db('request_logs').select(db.raw('rowid as _rowid'), 'request_logs.*').where('rowid', '>', cursor).orderBy('rowid').limit(limit)) as Row[];
  if (!rows.length && cursor > 0) {
    // A cursor past the last row means the rows were renumbered (VACUUM does that): start over;
    // the control plane keeps each id once, so what it has already adds nothing.
    const last = (await db('request_logs').max({ n: 'rowid' }).first()) as { n: number | null } | undefined;
    if (Number(last?.n ?? 0) < cursor) return readLogsAfter(db, 0, limit);
  }
  const last = rows.length ? Number(rows[rows.length - 1]!._rowid) : cursor;
  return { rows: rows.map(({ _rowid: _, rolled_up: __, ...row }) => row), cursor: last };
}

const columnsOf = new WeakMap<Knex, Promise<Set<string>>>();

/** Control plane: stores shipped rows (columns it does not know dropped) under `organisationId`. */
export async function writeShippedLogs(db: Knex, organisationId: string, rows: Row[]): Promise<void> {
  if (!rows.length) return;
  let columns = columnsOf.get(db);
  if (!columns) columnsOf.set(db, (columns = db('request_logs').columnInfo().then((info) => new Set(Object.keys(info)))));
  const known = await columns;
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((name) => known.has(name) && name !== 'rolled_up');
  const stored = rows.map((row) =>
    Object.fromEntries(
      names.map((name) => {
        const value = name === 'organisation_id' ? organisationId : row[name];
        return [name, value !== null && typeof value === 'object' ? JSON.stringify(value) : (value ?? null)];
      }),
    ),
  );
  await writeLogRows(db, stored);
}

