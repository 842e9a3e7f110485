import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * SCIM provisioning: bearer tokens identity providers use, groups and their members, and the
 * mappings that make a group's members members of workspaces. Memberships a mapping granted
 * are marked so that leaving the group takes away only those.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('scim_tokens', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('masked_token', 64).notNullable();
    t.string('status', 16).notNullable();
    t.string('last_used_at', 32).nullable();
    t.string('created_by', 320).nullable();
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('scim_groups', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('display_name', 255).notNullable();
    t.string('external_id', 255).nullable();
    timestamps(t);
    t.unique(['organisation_id', 'display_name']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('scim_group_members', (t) => {
    t.string('group_id', 36).notNullable().references('scim_groups.id').onDelete('CASCADE');
    t.string('user_id', 36).notNullable().references('users.id').onDelete('CASCADE');
    t.primary(['group_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('scim_workspace_mappings', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('scim_group_id', 36).notNullable().references('scim_groups.id').onDelete('CASCADE');
    t.string('role', 16).notNullable();
    // 'active' | 'archived' (a deleted mapping is archived).
    t.string('status', 16).notNullable();
    timestamps(t);
    t.index(['organisation_id', 'status', 'created_at', 'id']);
    t.index(['scim_group_id', 'status']);
  });

  await knex.schema.alterTable('workspace_members', (t) => {
    // True when a SCIM group mapping made this membership (and may take it away again).
    t.boolean('scim_managed').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspace_members', (t) => {
    t.dropColumn('scim_managed');
  });
  await knex.schema.dropTable('scim_workspace_mappings');
  await knex.schema.dropTable('scim_group_members');
  await knex.schema.dropTable('scim_groups');
  await knex.schema.dropTable('scim_tokens');
}
