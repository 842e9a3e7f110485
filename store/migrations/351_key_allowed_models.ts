import type { Knex } from 'knex';

/** The models an API key may call (null: every model). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.jsonb('allowed_models');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('allowed_models');
  });
}
