import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

const BASE = `workspace_id, api_key_id, model, provider, status, user_id, latency_ms, cost,
  prompt_tokens, completion_tokens, total_tokens, cache_hit, is_error, rescued`;

/**
 * On Postgres the covering index over (organisation, time) also carries what analytics read from
 * raw rows since 004 (cost_unpriced, rolled_up, the endpoint, cache status and special metadata columns), so
 * the raw edges of a range are index-only scans instead of reads of heap rows that carry request
 * and response bodies (measured: the heap is about 800 bytes a row). SQLite has no INCLUDE.
 */
export async function up(knex: Knex): Promise<void> {
  if (dialectOf(knex) !== 'postgres') return;
  await knex.raw('drop index request_logs_org_time_covering');
  await knex.raw(`create index request_logs_org_time_covering on request_logs (organisation_id, created_at, id)
    include (${BASE}, cost_unpriced, rolled_up, cache_status, endpoint, environment, end_organisation, prompt_id)`);
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex) !== 'postgres') return;
  await knex.raw('drop index request_logs_org_time_covering');
  await knex.raw(`create index request_logs_org_time_covering on request_logs (organisation_id, created_at, id) include (${BASE})`);
}
