import type { Knex } from 'knex';
import { migrations } from './migrations/index.js';

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

function isLockContention(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  // knex's own lock, and the races of several instances creating knex's bookkeeping tables at once.
  return (
    (error as Error)?.name === 'MigrationLocked' ||
    /already locked|duplicate key value|already exists/i.test(text)
  );
}

/**
 * Brings the schema up to date. Several instances may start against one Postgres at once:
 * knex's migration lock lets one run the migrations, the others wait and retry until it is done.
 */
export async function migrateToLatest(db: Knex, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await db.migrate.latest({ migrationSource: source, disableMigrationsListValidation: false });
      return;
    } catch (error) {
      if (!isLockContention(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1000) * (0.5 + Math.random())));
    }
  }
}
