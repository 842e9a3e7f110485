import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/** A2A agents: endpoint, how to authenticate (secrets sealed in `secrets`), and the agent card. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_integrations', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.string('url', 2048).notNullable();
    t.string('auth_type', 16).notNullable();
    // auth_config with secret values masked; the values sealed in `secrets`.
    t.jsonb('auth_config').notNullable();
    t.text('secrets');
    t.jsonb('agent_card');
    t.string('status', 16).notNullable();
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('agent_integrations');
}
