import type { Knex } from 'knex';

/**
 * Workspace user keys gw creates itself when a member joins a workspace with auto-create on.
 * The flag keeps them apart from keys an admin made, so creation stays at one active key per
 * user per workspace; the index serves that lookup.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.boolean('auto_created').notNullable().defaultTo(false);
    t.index(['workspace_id', 'user_id', 'auto_created'], 'api_keys_auto_created_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['workspace_id', 'user_id', 'auto_created'], 'api_keys_auto_created_idx');
    t.dropColumn('auto_created');
  });
}
