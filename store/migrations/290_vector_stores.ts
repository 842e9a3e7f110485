import type { Knex } from 'knex';

/**
 * Vector stores for file search. A store names its embedding model and keeps the principal that
 * created it (ingestion embeds as that caller, in the worker room). Counts and statuses are read
 * from `vector_store_files`, never kept twice. Chunks keep their text and their vector (JSON
 * numbers): the store is the index, so it survives a restart and is shared by every instance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vector_stores', (t) => {
    t.string('id', 64).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.bigInteger('position').notNullable();
    t.string('name', 256).nullable();
    t.jsonb('metadata').nullable();
    t.jsonb('expires_after').nullable();
    t.string('embedding_model', 256).notNullable();
    t.jsonb('principal').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_active_at').notNullable();
    t.index(['workspace_id', 'position']);
  });
  await knex.schema.createTable('vector_store_files', (t) => {
    t.string('vector_store_id', 64).notNullable();
    t.string('id', 64).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.bigInteger('position').notNullable();
    t.string('batch_id', 64).nullable();
    // in_progress | completed | failed | cancelled
    t.string('status', 16).notNullable();
    t.jsonb('last_error').nullable();
    t.jsonb('chunking').notNullable();
    t.jsonb('attributes').nullable();
    t.bigInteger('usage_bytes').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['vector_store_id', 'id']);
    t.index(['vector_store_id', 'position']);
    t.index(['batch_id']);
  });
  await knex.schema.createTable('vector_store_file_batches', (t) => {
    t.string('id', 64).primary();
    t.string('vector_store_id', 64).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.boolean('cancelled').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('vector_store_chunks', (t) => {
    t.string('vector_store_id', 64).notNullable();
    t.string('file_id', 64).notNullable();
    t.integer('seq').notNullable();
    t.text('text').notNullable();
    t.text('vector').notNullable();
    t.primary(['vector_store_id', 'file_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['vector_store_chunks', 'vector_store_file_batches', 'vector_store_files', 'vector_stores']) await knex.schema.dropTableIfExists(table);
}
