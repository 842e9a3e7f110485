import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Guardrails (named lists of checks with an action), the organisation's default input and output
 * guardrails, and the workspaces excluded from those defaults. `phase` is 'input' or 'output'.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('guardrails', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    // Null: usable by every workspace of the organisation (and eligible as an organisation default).
    t.string('workspace_id', 36).references('workspaces.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    // Check parameters with secret values (endpoint `headers`) masked; the values sealed in `secrets`.
    t.jsonb('checks').notNullable();
    t.text('secrets');
    t.jsonb('actions').notNullable();
    t.boolean('fail_on_error').notNullable().defaultTo(false);
    // Null: the default timeout (gateway/guardrails/definition.ts).
    t.integer('timeout_ms');
    t.string('created_by', 36);
    timestamps(t);
    // Configs name guardrails by slug, so slugs are unique per organisation.
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['workspace_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('organisation_guardrail_defaults', (t) => {
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('phase', 8).notNullable();
    t.string('guardrail_id', 36).notNullable().references('guardrails.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.primary(['organisation_id', 'phase', 'guardrail_id']);
    t.index(['guardrail_id']);
  });

  await knex.schema.createTable('guardrail_workspace_exclusions', (t) => {
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('phase', 8).notNullable();
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.primary(['organisation_id', 'phase', 'workspace_id']);
    t.index(['workspace_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('guardrail_workspace_exclusions');
  await knex.schema.dropTable('organisation_guardrail_defaults');
  await knex.schema.dropTable('guardrails');
}
