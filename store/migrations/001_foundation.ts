import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisations', (t) => {
    idColumn(t);
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable().unique();
    t.jsonb('settings');
    timestamps(t);
  });

  await knex.schema.createTable('workspaces', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.jsonb('defaults');
    t.jsonb('settings');
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('users', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('first_name', 255);
    t.string('last_name', 255);
    t.string('role', 16).notNullable();
    t.string('status', 16).notNullable().defaultTo('active');
    timestamps(t);
    t.unique(['organisation_id', 'email']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 36).references('users.id').onDelete('SET NULL');
    t.string('type', 16).notNullable();
    t.string('sub_type', 16).notNullable();
    t.string('name', 255).notNullable();
    t.text('description');
    t.jsonb('scopes').notNullable();
    // SHA-256 of the secret; the secret itself is never stored.
    t.string('key_hash', 64).notNullable().unique();
    t.string('masked_key', 64).notNullable();
    // During a rotation's transition period the previous secret still works until it expires.
    t.string('previous_key_hash', 64).index();
    t.string('previous_key_expires_at', 32);
    t.string('status', 16).notNullable();
    t.string('expires_at', 32);
    t.string('rotation_period', 16);
    t.integer('rotation_period_days');
    t.string('next_rotation_at', 32);
    t.string('last_rotated_at', 32);
    t.string('created_by', 36);
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['workspace_id', 'created_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('users');
  await knex.schema.dropTable('workspaces');
  await knex.schema.dropTable('organisations');
}
