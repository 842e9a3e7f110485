import type { Knex } from 'knex';

/**
 * Semantic-cache entries: one embedded last user turn with the answer it got, under a scope key
 * (tenant, namespace, provider, model, the rest of the request; see gateway/cache/cache-key.ts).
 * Vectors are JSON text: they are only ever loaded whole into an in-memory index, never queried.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('semantic_cache_entries', (t) => {
    t.string('id', 36).primary();
    t.string('scope', 64).notNullable();
    t.string('organisation_id', 36).notNullable();
    t.text('vector').notNullable();
    t.text('response').notNullable();
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.index(['scope', 'expires_at']);
    t.index(['expires_at']);
    t.index(['organisation_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('semantic_cache_entries');
}
