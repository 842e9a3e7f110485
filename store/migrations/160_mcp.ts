import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * MCP: integrations (an MCP server's address and credentials, organisation or workspace owned),
 * the capabilities synced from it, servers (a workspace's instance of an integration, reached at
 * `{base}/{slug}/mcp`), per-user access, gateway sessions (shared by every instance) and the
 * guardrails mapped to servers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_integrations', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    // Set for a workspace-owned integration; null for an organisation's.
    t.string('workspace_id', 36).nullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.string('description', 1024).nullable();
    t.string('url', 2048).notNullable();
    t.string('transport', 16).notNullable();
    t.string('auth_type', 32).notNullable();
    // Masked copy for responses; the values themselves are sealed in `secrets`.
    t.jsonb('configurations').notNullable();
    t.text('secrets').nullable();
    t.boolean('global_workspace_access').notNullable().defaultTo(false);
    t.string('status', 16).notNullable();
    t.string('server_name', 255).nullable();
    t.string('server_version', 255).nullable();
    t.string('protocol_version', 64).nullable();
    t.jsonb('capability_flags').nullable();
    // 'pending' | 'synced' | 'failed'
    t.string('sync_status', 16).notNullable();
    t.string('last_synced_at', 32).nullable();
    t.string('sync_error', 2048).nullable();
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('mcp_integration_workspaces', (t) => {
    t.string('mcp_integration_id', 36).notNullable().references('mcp_integrations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.boolean('enabled').notNullable();
    timestamps(t);
    t.primary(['mcp_integration_id', 'workspace_id']);
  });

  await knex.schema.createTable('mcp_capabilities', (t) => {
    t.string('mcp_integration_id', 36).notNullable().references('mcp_integrations.id').onDelete('CASCADE');
    // 'tool' | 'prompt' | 'resource' | 'resource_template'
    t.string('type', 24).notNullable();
    t.string('name', 1024).notNullable();
    t.jsonb('definition').notNullable();
    t.boolean('enabled').notNullable();
    // false once a sync no longer sees it: kept (with its enabled flag) in case it comes back.
    t.boolean('present').notNullable();
    timestamps(t);
    t.primary(['mcp_integration_id', 'type', 'name']);
  });

  await knex.schema.createTable('mcp_servers', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('mcp_integration_id', 36).notNullable().references('mcp_integrations.id').onDelete('RESTRICT');
    t.string('name', 255).notNullable();
    // The gateway path segment: unique, since `{base}/{slug}/mcp` names no organisation.
    t.string('slug', 50).notNullable().unique();
    t.string('description', 500).nullable();
    t.string('default_user_access', 8).notNullable();
    t.string('status', 16).notNullable();
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('mcp_server_capabilities', (t) => {
    t.string('mcp_server_id', 36).notNullable().references('mcp_servers.id').onDelete('CASCADE');
    t.string('type', 24).notNullable();
    t.string('name', 1024).notNullable();
    t.boolean('enabled').notNullable();
    timestamps(t);
    t.primary(['mcp_server_id', 'type', 'name']);
  });

  await knex.schema.createTable('mcp_server_user_access', (t) => {
    t.string('mcp_server_id', 36).notNullable().references('mcp_servers.id').onDelete('CASCADE');
    t.string('user_id', 36).notNullable().references('users.id').onDelete('CASCADE');
    t.boolean('enabled').notNullable();
    timestamps(t);
    t.primary(['mcp_server_id', 'user_id']);
  });

  // Gateway sessions: any instance answers any request of a session.
  await knex.schema.createTable('mcp_sessions', (t) => {
    idColumn(t);
    t.string('mcp_server_id', 36).notNullable().references('mcp_servers.id').onDelete('CASCADE');
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    // Who opened it; a session answers only to the same caller.
    t.string('principal_key', 255).notNullable();
    t.string('user_id', 36).nullable();
    t.string('upstream_session_id', 1024).nullable();
    t.string('protocol_version', 64).nullable();
    timestamps(t);
    t.index(['mcp_server_id', 'created_at']);
  });

  await knex.schema.createTable('mcp_guardrail_servers', (t) => {
    t.string('guardrail_id', 36).notNullable().references('guardrails.id').onDelete('CASCADE');
    t.string('mcp_server_id', 36).notNullable().references('mcp_servers.id').onDelete('CASCADE');
    t.string('organisation_id', 36).notNullable();
    t.jsonb('capability_ids').notNullable();
    // 'beforeToolCall' | 'afterToolCall'
    t.string('run_on', 16).notNullable();
    timestamps(t);
    t.primary(['guardrail_id', 'mcp_server_id']);
    t.index(['mcp_server_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'mcp_guardrail_servers',
    'mcp_sessions',
    'mcp_server_user_access',
    'mcp_server_capabilities',
    'mcp_servers',
    'mcp_capabilities',
    'mcp_integration_workspaces',
    'mcp_integrations',
  ]) {
    await knex.schema.dropTable(table);
  }
}
