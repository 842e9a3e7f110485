import type { Knex } from 'knex';

/**
 * The job table of the in-process queue engine (jobs/store-job-queue.ts), used when gw runs on
 * SQLite without Redis. Times are epoch milliseconds so claims compare numbers. The partial unique
 * index is the singleton rule: at most one job per name and key waiting to run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('jobs', (t) => {
    t.string('id', 36).primary();
    t.string('name', 200).notNullable();
    t.text('payload').notNullable();
    t.string('singleton_key', 200);
    t.string('state', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.bigInteger('run_at').notNullable();
    t.bigInteger('lease_until');
    t.text('last_error');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('finished_at');
    t.index(['state', 'run_at'], 'jobs_state_run_at');
  });
  await knex.raw(`create unique index jobs_one_waiting_per_key on jobs (name, singleton_key) where state = 'queued' and singleton_key is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('jobs');
}
