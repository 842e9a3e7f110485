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
  // A SQLite data plane shipped after a rowid cursor until now: what it had not shipped yet is queued.
  const cursor = (await knex('deployment_sync_state').where({ name: 'log_cursor' }).first()) as { value: string } | undefined;
  if (!cursor) return;
  await knex.raw('insert into log_outbox (log_id) select id from request_logs where rowid > ?', [Number(cursor.value)]);
  await knex('deployment_sync_state').where({ name: 'log_cursor' }).delete();
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('log_outbox');
}
