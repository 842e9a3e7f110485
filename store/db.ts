import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// COUNT(*) and bigint columns come back from Postgres as strings; every value gw keeps there fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export interface DbOptions {
  /** Postgres URL; SQLite when absent. */
  databaseUrl?: string;
  /** SQLite file; `:memory:` for a private in-memory database. */
  sqliteFile?: string;
  dataDir?: string;
  poolSize?: number;
  /** Postgres schema to work in (tests isolate themselves with one each). */
  schema?: string;
}

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(db: Knex): Dialect {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

interface SqlitePragmas {
  pragma(sql: string): unknown;
}

/** Every gw connection to a SQLite file, the log writer thread's included, runs with these. */
export function configureSqlite(connection: SqlitePragmas): void {
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
}

/** The file behind a SQLite store; undefined on Postgres and for an in-memory database. */
export function sqliteFileOf(db: Knex): string | undefined {
  if (dialectOf(db) !== 'sqlite') return undefined;
  const filename = (db.client.config.connection as { filename?: string } | undefined)?.filename;
  return filename && filename !== ':memory:' ? filename : undefined;
}

export function createDb(options: DbOptions): Knex {
  if (options.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      searchPath: options.schema ? [options.schema] : undefined,
      pool: { min: 0, max: options.poolSize ?? 12 },
    });
  }
  const filename = options.sqliteFile ?? path.join(options.dataDir ?? './data', 'gw.sqlite');
  if (filename !== ':memory:') mkdirSync(path.dirname(filename), { recursive: true });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      // better-sqlite3 is synchronous: one connection serialises writers, WAL lets readers go on.
      min: 1,
      max: 1,
      afterCreate(connection: SqlitePragmas, done: (err: Error | null, c: unknown) => void) {
        configureSqlite(connection);
        done(null, connection);
      },
    },
  });
}
