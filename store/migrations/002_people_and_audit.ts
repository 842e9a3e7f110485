import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Workspace membership (a user's role in one workspace), invitations, and the audit log of
 * every administrative write.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspace_members', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 36).notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 16).notNullable();
    timestamps(t);
    t.unique(['workspace_id', 'user_id']);
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('invitations', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('role', 16).notNullable();
    // [{workspace_id, role}] the invitee joins on acceptance.
    t.jsonb('workspaces').notNullable();
    // SHA-256 of the invitation token; the token itself is shown once.
    t.string('token_hash', 64).notNullable().unique();
    t.string('status', 16).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('accepted_at', 32);
    t.string('created_by', 36);
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['organisation_id', 'email']);
  });

  await knex.schema.createTable('audit_logs', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36);
    t.string('actor_user_id', 36);
    t.string('actor_key_id', 36);
    t.string('action', 128).notNullable();
    t.string('method', 8).notNullable();
    t.string('path', 2048).notNullable();
    t.string('resource_type', 64).notNullable();
    t.string('resource_id', 255);
    t.integer('status').notNullable();
    t.string('ip_address', 64);
    t.string('trace_id', 255);
    t.jsonb('request');
    t.string('created_at', 32).notNullable();
    t.index(['organisation_id', 'created_at', 'id']);
    t.index(['organisation_id', 'action', 'created_at']);
    t.index(['organisation_id', 'resource_type', 'resource_id']);
    t.index(['organisation_id', 'actor_user_id', 'created_at']);
    t.index(['organisation_id', 'actor_key_id', 'created_at']);
    t.index(['organisation_id', 'workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_logs');
  await knex.schema.dropTable('invitations');
  await knex.schema.dropTable('workspace_members');
}
