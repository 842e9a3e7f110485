import { Worker } from 'node:worker_threads';
import { sqliteValue, type LogWriteOptions } from './log-batch-write.js';
import type { BatchDone, DropBatch, WriteBatch } from './sqlite-writer-worker.js';

type Row = Record<string, unknown>;

/** Rows per message to the thread: copying 100 rows blocks the loop about a millisecond. */
const CHUNK_ROWS = 100;

interface Waiting {
  worker: Worker;
  resolve: () => void;
  reject: (error: Error) => void;
}

// Sources run under tsx (tests, scripts), dist/ runs compiled JavaScript. A thread does not inherit
// the loader hooks, so from sources the thread registers tsx before it imports the TypeScript worker.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./sqlite-writer-worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);

function spawnWorker(filename: string): Worker {
  if (!FROM_SOURCES) return new Worker(WORKER_URL, { workerData: { filename } });
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: { filename } });
}

/**
 * Writes request-log batches and their rollups into a SQLite file from a worker thread. better-sqlite3 is synchronous, so on the
 * main thread every log batch, and now and then a WAL checkpoint with its fsync, stalls all
 * requests in flight. Rows cross as arrays of bindable values; the caller learns when its batch
 * is committed, or why not (a thread that died fails its batches, and the next insert starts a new one).
 */
export class SqliteWriterThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();

  constructor(private readonly filename: string) {}

  /**
   * Request-log rows (toLogRow's shape), written with their rollups in one transaction
   * (store/log-batch-write.ts). Copying rows to the thread blocks the event loop, so a large batch
   * crosses in parts of CHUNK_ROWS with a turn of the loop between them; the thread writes the
   * batch once its last part has come.
   */
  writeLogs(rows: Row[], options: LogWriteOptions): Promise<void> {
    if (!rows.length) return Promise.resolve();
    const id = (this.nextId += 1);
    const worker = this.started();
    const written = new Promise<void>((resolve, reject) => this.waiting.set(id, { worker, resolve, reject }));
    // Referenced only while a batch is in flight: an idle writer never holds the process open.
    worker.ref();
    void this.post(worker, id, rows, options);
    return written;
  }

  private async post(worker: Worker, id: number, rows: Row[], options: LogWriteOptions): Promise<void> {
    const columns = [...Object.keys(rows[0]!), 'rolled_up'];
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      // The thread died meanwhile: failAll has settled the batch.
      if (!this.waiting.has(id)) return;
      const values = rows.slice(start, start + CHUNK_ROWS).map((row) => rowValues(row, columns));
      if (values.includes(undefined)) {
        // Parts already sent are dropped by the thread; nothing of the batch is written.
        if (start > 0) worker.postMessage({ id, drop: true } satisfies DropBatch);
        this.settle(id, new Error('log rows differ in their columns'));
        return;
      }
      const part: WriteBatch = { id, columns, rows: values as unknown[][], outbox: options.outbox, more: start + CHUNK_ROWS < rows.length };
      worker.postMessage(part);
    }
  }

  /** Waits for nothing: callers flush first. Stops the thread and its connection. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(this.filename);
    worker.unref();
    worker.on('message', (done: BatchDone) => this.settle(done.id, done.error === undefined ? undefined : new Error(done.error)));
    worker.on('error', (error) => this.failAll(worker, error));
    worker.on('exit', (code) => this.failAll(worker, new Error(`the SQLite writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(id: number, error: Error | undefined): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (![...this.waiting.values()].some((other) => other.worker === waiting?.worker)) waiting?.worker.unref();
    if (error) waiting?.reject(error);
    else waiting?.resolve();
  }

  private failAll(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, waiting] of this.waiting) {
      if (waiting.worker !== worker) continue;
      this.waiting.delete(id);
      waiting.reject(error);
    }
  }
}

/**
 * A row's bindable values in `columns` order, its columns checked in the same pass (every request
 * log goes through here on the event loop); undefined when the row has other columns.
 */
function rowValues(row: Row, columns: readonly string[]): unknown[] | undefined {
  const last = columns.length - 1; // rolled_up, which the row does not carry
  const values = new Array<unknown>(columns.length);
  let i = 0;
  for (const column in row) {
    if (i === last || column !== columns[i]) return undefined;
    values[i++] = sqliteValue(row[column]);
  }
  if (i !== last) return undefined;
  values[last] = 1;
  return values;
}
