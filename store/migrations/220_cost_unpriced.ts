import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

const COVERED = `workspace_id, api_key_id, model, provider, status, user_id, latency_ms, cost,
  prompt_tokens, completion_tokens, total_tokens, cache_hit, is_error, rescued`;

/**
 * `cost_unpriced`: the price catalog did not know the request's model, so its cost of 0 means
 * "not counted", not "free". On Postgres the analytics covering index (004) gains the column, so
 * counting unpriced requests stays an index-only scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.boolean('cost_unpriced').notNullable().defaultTo(false);
  });
  if (dialectOf(knex) === 'postgres') {
    await knex.raw('drop index if exists request_logs_org_time_covering');
    await knex.raw(`create index request_logs_org_time_covering on request_logs (organisation_id, created_at, id) include (${COVERED}, cost_unpriced)`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex) === 'postgres') {
    await knex.raw('drop index if exists request_logs_org_time_covering');
    await knex.raw(`create index request_logs_org_time_covering on request_logs (organisation_id, created_at, id) include (${COVERED})`);
  }
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('cost_unpriced');
  });
}
