/**
 * Request logs shipped from a data plane to its control plane. The data plane's log batch write
 * queues each new row's id in `log_outbox` in the row's own transaction (store/log-batch-write.ts),
 * so an id there always names a committed row, on either engine and in any commit order; ids
 * leave only once the control plane has acknowledged them. The control plane stores the rows
 * under the deployment's organisation, each id once.
 */
import type { Knex } from 'knex';
import { writeLogRows } from './log-batch-write.js';

type Row = Record<string, unknown>;

export interface OutboxBatch {
  /** The outbox ids taken; to be cleared once acknowledged. */
  ids: string[];
  /** Their rows still stored (retention may have deleted some: those ids only leave). */
  rows: Row[];
}

/** Data plane: up to `limit` queued ids and their rows, in no particular order. */
export async function readOutbox(db: Knex, limit: number): Promise<OutboxBatch> {
  const ids = ((await db('log_outbox').select('log_id').limit(limit)) as Array<{ log_id: string }>).map((row) => row.log_id);
  if (!ids.length) return { ids, rows: [] };
  const rows = (await db('request_logs').whereIn('id', ids).select('*')) as Row[];
  return { ids, rows: rows.map(({ rolled_up: _, ...row }) => row) };
}

/** Data plane: the control plane holds these rows; exactly these ids leave the outbox. */
export async function clearOutbox(db: Knex, ids: string[]): Promise<void> {
  await db('log_outbox').whereIn('log_id', ids).delete();
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
  // A control plane keeps what it receives: nothing of it goes into an outbox.
  await writeLogRows(db, stored, { outbox: false });
}

