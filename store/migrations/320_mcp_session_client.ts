import type { Knex } from 'knex';

/**
 * What the MCP client declared when it opened a gateway session (its capabilities), so that any
 * instance can tell whether a server-to-client request (sampling, elicitation, roots) may be
 * relayed to it, and the protocol version it negotiated with gw (which may differ from the
 * upstream's, gw bridging the two).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_sessions', (t) => {
    t.text('client_capabilities').nullable();
    t.string('client_protocol_version', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_sessions', (t) => {
    t.dropColumn('client_capabilities');
    t.dropColumn('client_protocol_version');
  });
}
