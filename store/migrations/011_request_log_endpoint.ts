import type { Knex } from 'knex';

/**
 * What kind of call a log row records (chat completions, embeddings, an MCP tool call, ...), so
 * logs and analytics can tell them apart. Rows logged before are chat completions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.string('endpoint', 64).notNullable().defaultTo('chat.completions');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('endpoint');
  });
}
