/**
 * The store a log bench runs gw on, seen from outside gw: a fresh Postgres database of its own (or
 * a SQLite file in a scratch folder), row counts while gw writes, and the physical ceiling of the
 * same box: the same rows written again by a plain COPY (Postgres) or one prepared INSERT in one
 * transaction (SQLite, which has no COPY), into the same table, with no rollups.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/** Which of gw's rows a count or a copy reads. */
export interface RowSet {
  source: 'gateway' | 'custom';
  /** Custom logs: the trace id prefix one ingestion run gave its rows. */
  tracePrefix?: string;
  /** Only the rows the rollup folder has yet to count (counts only). */
  notRolledUp?: boolean;
}

export interface CopyResult {
  rows: number;
  seconds: number;
}

export interface BenchStore {
  readonly engine: 'postgres' | 'sqlite';
  /** What gw's environment needs to use this store. */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  count(set: RowSet): Promise<number>;
  /** The rows of `set` written again with new ids (source `copy`), timed: the ceiling gw is compared with. */
  copyAgain(set: RowSet): Promise<CopyResult>;
  close(): Promise<void>;
}

function whereOf(set: RowSet, placeholder: (n: number) => string): { sql: string; values: string[] } {
  const pending = set.notRolledUp ? ' and not rolled_up' : '';
  if (set.tracePrefix) return { sql: `source = ${placeholder(1)} and trace_id like ${placeholder(2)}${pending}`, values: [set.source, `${set.tracePrefix}%`] };
  return { sql: `source = ${placeholder(1)}${pending}`, values: [set.source] };
}

export async function postgresBenchStore(adminUrl: string): Promise<BenchStore> {
  const name = `gw_bench_logs_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-logs-'));
  let columns: string[] | undefined;
  return {
    engine: 'postgres',
    env: { GW_DATABASE_URL: url.toString(), GW_DATA_DIR: dataDir },
    dataDir,
    async count(set) {
      const where = whereOf(set, (n) => `$${n}`);
      const answer = await client.query(`select count(*)::int as n from request_logs where ${where.sql}`, where.values);
      return Number(answer.rows[0].n);
    },
    async copyAgain(set) {
      columns ??= (await client.query(`select column_name from information_schema.columns where table_schema = 'public' and table_name = 'request_logs' order by ordinal_position`)).rows.map((row: { column_name: string }) => row.column_name);
      const where = whereOf(set, (n) => (n === 1 ? `'${set.source}'` : `'${set.tracePrefix}%'`));
      const select = columns.map((column) => (column === 'id' ? 'gen_random_uuid()::text' : column === 'source' ? `'copy'` : `"${column}"`)).join(', ');
      const chunks: Buffer[] = [];
      await pipeline(
        client.query(copyTo(`copy (select ${select} from request_logs where ${where.sql}) to stdout`)),
        new Writable({ write(chunk: Buffer, _encoding, done) { chunks.push(chunk); done(); } }),
      );
      const rows = (await client.query(`select count(*)::int as n from request_logs where ${where.sql}`)).rows[0].n as number;
      const started = performance.now();
      await pipeline(Readable.from(chunks), client.query(copyFrom(`copy request_logs (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`)));
      return { rows, seconds: (performance.now() - started) / 1000 };
    },
    async close() {
      await client.end();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function sqliteBenchStore(): BenchStore {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-logs-'));
  const file = path.join(dataDir, 'gw.sqlite');
  let db: Database.Database | undefined;
  // Opened once gw has created and migrated the file.
  const open = () => {
    if (!db) {
      db = new Database(file);
      db.pragma('busy_timeout = 5000');
    }
    return db;
  };
  return {
    engine: 'sqlite',
    env: { GW_DATA_DIR: dataDir },
    dataDir,
    async count(set) {
      const where = whereOf(set, () => '?');
      return (open().prepare(`select count(*) as n from request_logs where ${where.sql}`).get(...where.values) as { n: number }).n;
    },
    async copyAgain(set) {
      const connection = open();
      const where = whereOf(set, () => '?');
      const rows = connection.prepare(`select * from request_logs where ${where.sql}`).raw().all(...where.values) as unknown[][];
      const columns = (connection.prepare('select * from request_logs limit 0').columns()).map((column) => column.name);
      const idAt = columns.indexOf('id');
      const sourceAt = columns.indexOf('source');
      for (const row of rows) {
        row[idAt] = randomBytes(16).toString('hex');
        row[sourceAt] = 'copy';
      }
      const insert = connection.prepare(`insert into request_logs (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      const started = performance.now();
      connection.transaction(() => {
        for (const row of rows) insert.run(row);
      })();
      return { rows: rows.length, seconds: (performance.now() - started) / 1000 };
    },
    async close() {
      db?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
