/**
 * The SQLite writer thread (store/sqlite-writer-thread.ts starts it): its own connection to the
 * store's file, one transaction per batch holding the log rows and their rollup deltas. Inserts,
 * rollup upserts and the WAL checkpoints they trigger block this thread, never the gateway's
 * event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { configureSqlite } from './db.js';
import { writeLogRowsSqlite } from './log-batch-write.js';

export interface WriteBatch {
  id: number;
  columns: string[];
  rows: unknown[][];
  outbox: boolean;
  /** More parts of this batch follow; it is written with its last part. */
  more: boolean;
}

/** A batch whose later part could not be sent: forget its earlier parts. */
export interface DropBatch {
  id: number;
  drop: true;
}

export interface BatchDone {
  id: number;
  error?: string;
}

const db = new Database((workerData as { filename: string }).filename);
configureSqlite(db);

/** Earlier parts of batches whose last part has not come yet. */
const parts = new Map<number, unknown[][]>();

parentPort!.on('message', (message: WriteBatch | DropBatch) => {
  if ('drop' in message) {
    parts.delete(message.id);
    return;
  }
  const { id, columns, rows, outbox, more } = message;
  const earlier = parts.get(id);
  if (more) {
    parts.set(id, earlier ? earlier.concat(rows) : rows);
    return;
  }
  parts.delete(id);
  try {
    writeLogRowsSqlite(db, columns, earlier ? earlier.concat(rows) : rows, { outbox });
    parentPort!.postMessage({ id } satisfies BatchDone);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies BatchDone);
  }
});
