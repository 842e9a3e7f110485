import type { Knex } from 'knex';

/**
 * Agent integrations take `oauth_client_credentials`, longer than the 16 characters auth_type held.
 * SQLite does not enforce a varchar's length, so only Postgres changes.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.string('auth_type', 32).notNullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex('agent_integrations').where({ auth_type: 'oauth_client_credentials' }).update({ auth_type: 'none' });
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.string('auth_type', 16).notNullable().alter();
  });
}
