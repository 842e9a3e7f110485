import type { Knex } from 'knex';
import { dialectOf } from './db.js';

/**
 * The Postgres advisory locks gw's instances take on one database: the first key of
 * pg_advisory_lock(int, int); the second is the hash of the schema gw's tables live in, so
 * installations in other schemas never wait for each other. (0x6777 prepares knex's own tables:
 * migrate.ts.)
 */
export const AdvisoryLock = {
  /** An instance's start: migrations, the job queue's schema and queues, the first organisation and admin key. */
  startup: 0x6778,
  /** Creating a pg-boss queue (DDL: two instances creating queues at once deadlock). */
  jobQueues: 0x6779,
} as const;

interface RawPgConnection {
  query(sql: string, values: unknown[]): Promise<unknown>;
}

/**
 * Runs `work` while this instance holds the lock: other instances asking for it wait until
 * `work` settles. The lock is held by a connection of its own, outside the pool (the work may need
 * every pooled connection, DB_POOL_SIZE=1 included), and closing that connection releases it, as
 * Postgres does when the process dies. SQLite serves one instance: `work` runs at once.
 */
export async function underAdvisoryLock<T>(db: Knex, lock: number, work: () => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work();
  const connection = (await db.client.acquireRawConnection()) as RawPgConnection;
  try {
    await connection.query('select pg_advisory_lock($1, hashtext(current_schema()))', [lock]);
    return await work();
  } finally {
    await db.client.destroyRawConnection(connection);
  }
}
