import type { Knex } from 'knex';

/** Stored responses expire (GW_RESPONSES_RETENTION_DAYS): the hourly sweep finds old ones by creation time across workspaces. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('responses', (t) => {
    t.index(['created_at'], 'responses_created_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('responses', (t) => {
    t.dropIndex(['created_at'], 'responses_created_at_index');
  });
}
