import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * The prompt library (issue 17): collections, labels, prompts and partials (one table, `kind`
 * tells them apart: they share the version, default and sharing rules), their immutable versions,
 * and which workspaces a prompt or partial is shared with. Request logs gain the prompt version
 * and label a prompt completion ran (prompt_id exists since 010); rollups keep both.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prompt_collections', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.string('parent_collection_id', 36).references('prompt_collections.id').onDelete('CASCADE');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.string('status', 16).notNullable();
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['parent_collection_id']);
  });

  await knex.schema.createTable('prompt_labels', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    // null: organisation-wide.
    t.string('workspace_id', 36).references('workspaces.id').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    t.text('description');
    t.string('color_code', 16);
    t.boolean('is_universal').notNullable().defaultTo(false);
    t.string('status', 16).notNullable();
    timestamps(t);
    t.index(['organisation_id', 'name']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('prompts', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('collection_id', 36).notNullable().references('prompt_collections.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.integer('default_version').notNullable();
    t.integer('latest_version').notNullable();
    t.string('status', 16).notNullable();
    t.string('created_by', 36);
    timestamps(t);
    t.unique(['organisation_id', 'kind', 'slug']);
    t.index(['workspace_id', 'kind', 'created_at', 'id']);
    t.index(['collection_id']);
  });

  await knex.schema.createTable('prompt_versions', (t) => {
    idColumn(t);
    t.string('prompt_id', 36).notNullable().references('prompts.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    // The template fields (string, parameters, model, virtual_key, tools, ...), immutable.
    t.jsonb('template').notNullable();
    t.text('description');
    t.string('label_id', 36).references('prompt_labels.id').onDelete('SET NULL');
    t.string('status', 16).notNullable();
    t.string('created_by', 36);
    t.string('created_at', 32).notNullable();
    t.unique(['prompt_id', 'version']);
    t.index(['label_id']);
  });

  await knex.schema.createTable('prompt_shares', (t) => {
    t.string('prompt_id', 36).notNullable().references('prompts.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('created_at', 32).notNullable();
    t.primary(['prompt_id', 'workspace_id']);
    t.index(['workspace_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('prompt_shares');
  await knex.schema.dropTable('prompt_versions');
  await knex.schema.dropTable('prompts');
  await knex.schema.dropTable('prompt_labels');
  await knex.schema.dropTable('prompt_collections');
}
