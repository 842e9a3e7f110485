import type { Knex } from 'knex';

/**
 * Per MCP server, whether gw relays the server-to-client features: the upstream's log messages
 * (and logging/setLevel), its sampling requests and its elicitation requests. On by default, as
 * before this setting existed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.boolean('relay_logging').notNullable().defaultTo(true);
    t.boolean('relay_sampling').notNullable().defaultTo(true);
    t.boolean('relay_elicitation').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropColumn('relay_logging');
    t.dropColumn('relay_sampling');
    t.dropColumn('relay_elicitation');
  });
}
