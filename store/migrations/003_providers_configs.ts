import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Integrations (organisation credentials), the workspaces allowed to use them, providers
 * (workspace-scoped `@slug` references, also served as legacy virtual keys), configs and their
 * versions. Secret fields live only in the `secrets` columns, sealed by store/secret-box.ts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('integrations', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.string('ai_provider_id', 64).notNullable();
    t.string('auth_type', 32).notNullable();
    t.string('masked_key', 64);
    // Non-secret cloud and auth fields.
    t.jsonb('configurations');
    // Sealed JSON of the secret fields (key, oauth_client_secret, aws_secret_access_key, ...).
    t.text('secrets');
    t.jsonb('pricing_adjustments');
    t.jsonb('secret_mappings');
    t.jsonb('models');
    t.boolean('all_workspaces').notNullable().defaultTo(false);
    t.string('status', 16).notNullable();
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('integration_workspaces', (t) => {
    t.string('integration_id', 36).notNullable().references('integrations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.primary(['integration_id', 'workspace_id']);
    t.index(['workspace_id']);
  });

  await knex.schema.createTable('providers', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('integration_id', 36).references('integrations.id').onDelete('RESTRICT');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('note');
    t.string('ai_provider_id', 64).notNullable();
    t.string('auth_type', 32).notNullable();
    t.string('masked_key', 64);
    t.jsonb('configurations');
    t.text('secrets');
    t.string('status', 16).notNullable();
    timestamps(t);
    t.unique(['workspace_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['integration_id']);
  });

  await knex.schema.createTable('configs', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).references('workspaces.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.string('status', 16).notNullable();
    t.integer('version').notNullable();
    t.string('created_by', 36);
    timestamps(t);
    // Slugs are unique per organisation: workspace defaults and x-gw-config name configs by slug.
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['workspace_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('config_versions', (t) => {
    idColumn(t);
    t.string('config_id', 36).notNullable().references('configs.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    // The document with secret values masked, and the secrets themselves sealed by JSON path.
    t.jsonb('config').notNullable();
    t.text('secrets');
    t.string('created_by', 36);
    t.string('created_at', 32).notNullable();
    t.unique(['config_id', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_versions');
  await knex.schema.dropTable('configs');
  await knex.schema.dropTable('providers');
  await knex.schema.dropTable('integration_workspaces');
  await knex.schema.dropTable('integrations');
}
