import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Secret references (where a secret lives in Vault, AWS Secrets Manager or Azure Key Vault, and
 * the sealed credentials gw signs in with), the workspaces allowed to use them, and which
 * integrations and providers map them: that index makes "refused while in use" one lookup and
 * the foreign key refuses a delete that slipped past it. Providers get their own secret_mappings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secret_references', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.string('manager_type', 32).notNullable();
    // auth_config with secret values masked; the values themselves sealed in `secrets`.
    t.jsonb('auth_config').notNullable();
    t.text('secrets');
    t.string('secret_path', 1024).notNullable();
    t.string('secret_key', 255);
    t.boolean('allow_all_workspaces').notNullable().defaultTo(true);
    t.jsonb('tags');
    t.string('status', 16).notNullable();
    t.string('created_by', 36);
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('secret_reference_workspaces', (t) => {
    t.string('secret_reference_id', 36).notNullable().references('secret_references.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.primary(['secret_reference_id', 'workspace_id']);
  });

  await knex.schema.createTable('secret_reference_uses', (t) => {
    t.increments('id').primary();
    t.string('secret_reference_id', 36).notNullable().references('secret_references.id').onDelete('RESTRICT');
    t.string('integration_id', 36).references('integrations.id').onDelete('CASCADE');
    t.string('provider_id', 36).references('providers.id').onDelete('CASCADE');
    t.index(['secret_reference_id']);
    t.index(['integration_id']);
    t.index(['provider_id']);
  });

  await knex.schema.alterTable('providers', (t) => {
    t.jsonb('secret_mappings');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('providers', (t) => {
    t.dropColumn('secret_mappings');
  });
  await knex.schema.dropTable('secret_reference_uses');
  await knex.schema.dropTable('secret_reference_workspaces');
  await knex.schema.dropTable('secret_references');
}
