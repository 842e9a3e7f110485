import type { Knex } from 'knex';
import type { JobQueue } from '../jobs/job-queue.js';
import { PgBossJobQueue } from '../jobs/pg-boss-job-queue.js';
import { StoreJobQueue } from '../jobs/store-job-queue.js';
import { JobsRepository } from '../store/repositories/jobs.js';
import type { DbOptions } from '../store/db.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/** pg-boss keeps its tables in a schema of its own beside gw's (tests: beside their private schema). */
export function jobsSchemaOf(dbSchema: string | undefined): string {
  return dbSchema ? `${dbSchema}_jobs` : 'gw_jobs';
}

/**
 * The worker room's engine (docs/workers.md): pg-boss on Postgres, else the in-process runner over
 * the store's jobs table (SQLite serves one instance). GW_JOBS_ENGINE overrides the choice.
 */
export function createJobQueue(config: Readonly<Config>, db: Knex, dbOptions: DbOptions, logger: Logger): JobQueue {
  const tuning = { leaseMs: config.jobs.leaseMs, pollMs: config.jobs.pollMs };
  const databaseUrl = dbOptions.databaseUrl;
  const engine = config.jobs.engine !== 'auto' ? config.jobs.engine : databaseUrl ? 'pg-boss' : 'store';
  if (engine === 'pg-boss' && databaseUrl) {
    return new PgBossJobQueue({ connectionString: databaseUrl, schema: jobsSchemaOf(dbOptions.schema) }, tuning, logger);
  }
  return new StoreJobQueue(new JobsRepository(db), tuning, logger);
}
