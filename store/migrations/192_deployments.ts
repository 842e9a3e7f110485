import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Self-hosted gateways registered with the control plane. Each holds one organisation API key
 * (scope deployments.sync, stored hashed like every key) that its heartbeats authenticate with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deployments', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description');
    t.jsonb('tags');
    t.string('source_type', 64);
    t.string('gateway_base_url', 2048);
    t.string('mcp_gateway_base_url', 2048);
    t.string('api_key_id', 36).notNullable().references('api_keys.id').onDelete('CASCADE');
    t.string('version', 32);
    t.string('last_heartbeat_at', 32);
    timestamps(t);
    t.unique(['organisation_id', 'slug']);
    t.unique(['api_key_id']);
    t.index(['organisation_id', 'created_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deployments');
}
