import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

/**
 * Analytics rollups (store/rollups/): per organisation, dimension set, time bucket, workspace
 * and dimension values, the counts and sums of the log rows in it and their latency sketch.
 * `dims_key` is the JSON array of the set's dimension values: the unique key tells a null
 * dimension from an empty one. The dimension columns carry request_logs' names so one filter
 * reads either table.
 *
 * `request_logs.rolled_up` says whether a row is counted in the rollups. Rows written before
 * are not, until `scripts/backfill-rollups.ts` counts them; analytics add the rows not yet
 * counted from the raw table (the partial index keeps that cheap once there are none).
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  await knex.schema.createTable('analytics_rollups', (t) => {
    t.string('organisation_id', 36).notNullable();
    t.string('dimension_set', 32).notNullable();
    t.string('grain', 8).notNullable();
    t.bigInteger('bucket_start').notNullable();
    t.string('workspace_id', 36).notNullable();
    t.text('dims_key').notNullable();
    t.string('api_key_id', 36).nullable();
    t.string('provider', 128).nullable();
    t.string('model', 255).nullable();
    t.integer('status').nullable();
    t.string('cache_status', 16).nullable();
    t.string('endpoint', 64).nullable();
    t.string('user_id', 255).nullable();
    t.string('environment', 128).nullable();
    t.string('end_organisation', 128).nullable();
    t.string('prompt_id', 128).nullable();
    t.bigInteger('requests').notNullable();
    t.bigInteger('errors').notNullable();
    t.double('cost').notNullable();
    t.double('cache_savings').notNullable();
    t.bigInteger('prompt_tokens').notNullable();
    t.bigInteger('completion_tokens').notNullable();
    t.bigInteger('total_tokens').notNullable();
    t.bigInteger('latency_sum').notNullable();
    t.bigInteger('cache_hits').notNullable();
    t.bigInteger('rescued').notNullable();
    t.jsonb('latency').notNullable();
    // The upsert key, and every analytics read: one organisation, one set, one grain, a range of buckets.
    t.primary(['organisation_id', 'dimension_set', 'grain', 'bucket_start', 'workspace_id', 'dims_key']);
  });
  await knex.schema.alterTable('request_logs', (t) => {
    t.boolean('rolled_up').notNullable().defaultTo(false);
  });
  await knex.raw(`create index request_logs_not_rolled_up on request_logs (organisation_id, created_at) where ${postgres ? 'not rolled_up' : 'rolled_up = 0'}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index request_logs_not_rolled_up');
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('rolled_up');
  });
  await knex.schema.dropTable('analytics_rollups');
}
