import type { Knex } from 'knex';

/**
 * A data plane's request-log outbox: the ids of rows written but not yet acknowledged by the
 * control plane. The log batch write fills it in the same transaction as the rows, only in
 * data-plane mode; the shipper deletes the ids the control plane acknowledged. Empty elsewhere.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('log_outbox', (t) => {
    t.string('log_id', 36).primary();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('log_outbox');
}
