import type { Knex } from 'knex';
import type { JobQueue } from '../jobs/job-queue.js';
import { PgBossJobQueue } from '../jobs/pg-boss-job-queue.js';
import { StoreJobQueue } from '../jobs/store-job-queue.js';
import { JobsRepository } from '../store/repositories/jobs.js';
import { AdvisoryLock, underAdvisoryLock } from '../store/advisory-lock.js';
import type { DbOptions } from '../store/db.js';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';

/**
 * pg-boss keeps its tables in a schema of its own beside gw's: `gw_jobs` beside `public`, else
 * `<schema>_jobs`. So two gw installations in one database (each in its schema, chosen by the
 * connection's search_path or by tests) never share a queue and take each other's jobs.
 */
export function jobsSchemaOf(dbSchema: string | undefined): string {
  return dbSchema && dbSchema !== 'public' ? `${dbSchema}_jobs` : 'gw_jobs';
}

/** The schema gw's tables live in: the one it was given, else the connection's current schema. */
async function gwSchemaOf(db: Knex, dbOptions: DbOptions): Promise<string | undefined> {
  if (dbOptions.schema) return dbOptions.schema;
  const result = (await db.raw('select current_schema() as name')) as { rows: Array<{ name: string | null }> };
  return result.rows[0]?.name ?? undefined;
}

/**
 * The worker room's engine (docs/workers.md): pg-boss on Postgres, else the in-process runner over
 * the store's jobs table (SQLite serves one instance). GW_JOBS_ENGINE overrides the choice.
 */
export async function createJobQueue(config: Readonly<Config>, db: Knex, dbOptions: DbOptions, logger: Logger): Promise<JobQueue> {
  const tuning = { leaseMs: config.jobs.leaseMs, pollMs: config.jobs.pollMs };
  const databaseUrl = dbOptions.databaseUrl;
  const engine = config.jobs.engine !== 'auto' ? config.jobs.engine : databaseUrl ? 'pg-boss' : 'store';
  if (engine === 'pg-boss' && databaseUrl) {
    return new PgBossJobQueue(
      {
        connectionString: databaseUrl,
        schema: jobsSchemaOf(await gwSchemaOf(db, dbOptions)),
        serialise: (work) => underAdvisoryLock(db, AdvisoryLock.jobQueues, work),
      },
      tuning,
      logger,
    );
  }
  return new StoreJobQueue(new JobsRepository(db), tuning, logger);
}
