import type { Knex } from 'knex';

/**
 * Issue 35: a client certificate gw presents to an agent (mTLS). `client_tls` holds the
 * certificate, the CA bundle and the key's mask (what answers show); `client_tls_key` the private
 * key, sealed like every other secret.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.jsonb('client_tls');
    t.text('client_tls_key');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.dropColumn('client_tls');
    t.dropColumn('client_tls_key');
  });
}
