import type { Knex } from 'knex';

/**
 * A data plane's own bookkeeping of its sync with the control plane, one row per name: the
 * version (ETag) of the snapshot it last applied. Unused on a
 * control plane.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deployment_sync_state', (t) => {
    t.string('name', 64).primary();
    t.text('value').notNullable();
    t.string('updated_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deployment_sync_state');
}
