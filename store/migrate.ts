import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { migrations } from './migrations/index.js';

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

/** First key of the Postgres advisory lock that prepares knex's tables; the second is the schema's hash. */
const PREPARE_LOCK_CLASS = 0x6777;

function isLockContention(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  // knex's own lock, and (SQLite files) the races of several instances creating knex's tables at once.
  return (error as Error)?.name === 'MigrationLocked' || /already locked|duplicate key value|already exists/i.test(text);
}

/** knex's own set-up of its two tables and lock row (what `migrate.latest` runs first), called here under a lock. */
const { ensureTable } = createRequire(import.meta.url)('knex/lib/migrations/migrate/table-creator.js') as {
  ensureTable(tableName: string, schemaName: string | undefined, trx: Knex.Transaction): Promise<unknown>;
};

/**
 * knex's bookkeeping tables on Postgres, made one instance at a time. knex checks for its lock row
 * and then inserts one, so instances starting together can leave two rows; its lock then needs
 * exactly one row to change and no instance can ever take it again. Several rows found here (an
 * earlier race) are replaced by one unlocked row: with several, nobody can have held the lock.
 */
async function prepareKnexTables(db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?, hashtext(current_schema()))', [PREPARE_LOCK_CLASS]);
    await ensureTable('knex_migrations', undefined, trx);
    const rows = await trx('knex_migrations_lock').count({ rows: '*' });
    if (Number(rows[0]!.rows) === 1) return;
    await trx('knex_migrations_lock').del();
    await trx('knex_migrations_lock').insert({ is_locked: 0 });
  });
}

/**
 * Brings the schema up to date. Several instances may start against one Postgres at once:
 * knex's migration lock lets one run the migrations, the others wait and retry until it is done.
 */
export async function migrateToLatest(db: Knex, timeoutMs = 60_000): Promise<void> {
  if (dialectOf(db) === 'postgres') await prepareKnexTables(db);
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await db.migrate.latest({ migrationSource, disableMigrationsListValidation: false });
      return;
    } catch (error) {
      if (!isLockContention(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1000) * (0.5 + Math.random())));
    }
  }
}
