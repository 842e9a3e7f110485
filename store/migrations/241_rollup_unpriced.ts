import type { Knex } from 'knex';

/**
 * Rollups count unpriced requests (request_logs.cost_unpriced, 220) beside the other measures, so
 * analytics answer `unpriced_requests` from them. Rows counted before hold 0 here: the backfill
 * (scripts/backfill-rollups.ts) recounts history when that matters.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('analytics_rollups', (t) => {
    t.bigInteger('unpriced').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('analytics_rollups', (t) => {
    t.dropColumn('unpriced');
  });
}
