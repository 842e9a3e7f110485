import type { Knex } from 'knex';

/**
 * Request logs, feedback and log exports.
 *
 * `request_logs.created_at` is epoch ms (bigint), not ISO text: analytics buckets and time
 * ranges are integer arithmetic and range scans. `user_id`, `is_error`, `cache_hit` and `rescued`
 * are derived at write time so analytics aggregate plain columns instead of parsing JSON.
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = knex.client.config.client === 'pg';
  await knex.schema.createTable('request_logs', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.string('api_key_id', 36).nullable();
    t.string('source', 16).notNullable();
    t.string('trace_id', 255).notNullable();
    t.string('span_id', 255).nullable();
    t.string('parent_span_id', 255).nullable();
    t.string('span_name', 255).nullable();
    t.bigInteger('created_at').notNullable();
    t.string('config_id', 36).nullable();
    t.string('provider', 128).nullable();
    t.string('model', 255).nullable();
    t.integer('status').notNullable();
    t.integer('latency_ms').notNullable();
    t.integer('first_byte_ms').nullable();
    t.boolean('stream').notNullable();
    t.integer('prompt_tokens').notNullable();
    t.integer('completion_tokens').notNullable();
    t.integer('total_tokens').notNullable();
    t.double('cost').notNullable();
    t.string('cache_status', 16).notNullable();
    t.boolean('cache_hit').notNullable();
    t.integer('retry_count').notNullable();
    t.boolean('is_error').notNullable();
    t.boolean('rescued').notNullable();
    t.string('user_id', 255).nullable();
    t.jsonb('route');
    t.jsonb('metadata');
    t.jsonb('request_headers');
    t.jsonb('request_body');
    t.jsonb('response_body');
    t.jsonb('error');
    t.jsonb('guardrail_results');
    // Lists and analytics always scope by organisation, and workspace keys by workspace, then by time.
    // (On Postgres the organisation index is created below as a covering index instead.)
    if (!postgres) t.index(['organisation_id', 'created_at', 'id']);
    t.index(['workspace_id', 'created_at']);
    t.index(['api_key_id', 'created_at']);
    t.index(['trace_id']);
    // Retention deletes by time across organisations.
    t.index(['created_at']);
  });
  if (postgres) {
    // Covering index: keyset pages and every analytics aggregate over a time range read this
    // narrow index (index-only scan) instead of heap rows that carry request and response bodies.
    await knex.raw(
      `create index request_logs_org_time_covering on request_logs (organisation_id, created_at, id)
       include (workspace_id, api_key_id, model, provider, status, user_id, latency_ms, cost,
                prompt_tokens, completion_tokens, total_tokens, cache_hit, is_error, rescued)`,
    );
    // Metadata key=value filters use jsonb containment; SQLite scans the time range instead.
    await knex.raw('create index request_logs_metadata_gin on request_logs using gin (metadata jsonb_path_ops)');
  }

  await knex.schema.createTable('log_feedback', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.string('api_key_id', 36).nullable();
    t.string('trace_id', 255).notNullable();
    t.integer('value').notNullable();
    t.double('weight').notNullable();
    t.jsonb('metadata');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['organisation_id', 'created_at']);
    t.index(['workspace_id', 'created_at']);
    t.index(['trace_id']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('log_exports', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).nullable();
    t.string('status', 16).notNullable();
    t.string('description', 1024).nullable();
    t.jsonb('filters');
    t.jsonb('requested_fields');
    t.integer('total_rows').nullable();
    t.integer('processed_rows').notNullable();
    /** Keyset position of the last row written and the file length at that point: resume truncates to it. */
    t.text('resume_cursor').nullable();
    t.bigInteger('bytes_written').notNullable();
    t.jsonb('error');
    t.string('created_by', 64).nullable();
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.string('started_at', 32).nullable();
    t.string('finished_at', 32).nullable();
    t.string('archived_at', 32).nullable();
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('log_exports');
  await knex.schema.dropTable('log_feedback');
  await knex.schema.dropTable('request_logs');
}
