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
}

export interface BatchDone {
  id: number;
  error?: string;
}

const db = new Database((workerData as { filename: string }).filename);
configureSqlite(db);

parentPort!.on('message', ({ id, columns, rows, outbox }: WriteBatch) => {
  try {
    writeLogRowsSqlite(db, columns, rows, { outbox });
    parentPort!.postMessage({ id } satisfies BatchDone);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies BatchDone);
  }
});
