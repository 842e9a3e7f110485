/**
 * The SQLite writer thread (store/sqlite-writer-thread.ts starts it): its own connection to the
 * store's file, one transaction per batch. Inserts and the WAL checkpoints they trigger block
 * this thread, never the gateway's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { configureSqlite } from './db.js';

export interface WriteBatch {
  id: number;
  sql: string;
  rows: unknown[][];
}

export interface BatchDone {
  id: number;
  error?: string;
}

const db = new Database((workerData as { filename: string }).filename);
configureSqlite(db);
const statements = new Map<string, Database.Statement>();

parentPort!.on('message', ({ id, sql, rows }: WriteBatch) => {
  try {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    const insert = statement;
    db.transaction(() => {
      for (const row of rows) insert.run(row);
    })();
    parentPort!.postMessage({ id } satisfies BatchDone);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies BatchDone);
  }
});
