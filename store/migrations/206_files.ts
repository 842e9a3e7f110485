import type { Knex } from 'knex';

/**
 * Files (`/v1/files`) live in the database on both engines, so every instance reads what any
 * instance stored. Content is kept in chunks of about 1 MiB (`file_chunks`), written as the upload
 * arrives and read back in order: neither an upload nor a download holds a whole file in memory.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (t) => {
    t.string('id', 64).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.string('purpose', 32).notNullable();
    t.string('filename', 512).notNullable();
    t.bigInteger('bytes').notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at');
    t.index(['workspace_id', 'created_at', 'id'], 'files_workspace_created');
  });
  await knex.schema.createTable('file_chunks', (t) => {
    t.string('file_id', 64).notNullable();
    t.integer('seq').notNullable();
    t.binary('data').notNullable();
    t.primary(['file_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_chunks');
  await knex.schema.dropTable('files');
}
