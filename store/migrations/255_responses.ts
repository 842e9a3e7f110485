import type { Knex } from 'knex';

/**
 * Stored responses of the Responses API (`store: true`), per workspace. `body` is the Response
 * object as answered; `input_items` the request's own input items with the ids gw gave them (for
 * GET /v1/responses/{id}/input_items); `history` the whole conversation as chat messages up to
 * and including this response's output, which a later `previous_response_id` continues from.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('responses', (t) => {
    t.string('id', 64).primary();
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('workspace_id', 36).notNullable();
    t.bigInteger('created_at').notNullable();
    t.jsonb('body').notNullable();
    t.jsonb('input_items').notNullable();
    t.jsonb('history').notNullable();
    t.index(['workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('responses');
}
