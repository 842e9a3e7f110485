import type { Knex } from 'knex';

/**
 * Rollups of arbitrary metadata keys (store/rollups/metadata-keys.ts): the `metadata` set's two
 * columns, and the list of keys rolled up with the instant each is counted from. Nothing to
 * convert: no key is listed before this runs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('analytics_rollups', (t) => {
    t.string('metadata_key', 128).nullable();
    t.string('metadata_value', 255).nullable();
  });
  await knex.schema.createTable('rollup_metadata_keys', (t) => {
    t.string('key', 128).primary();
    t.bigInteger('counted_from').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('analytics_rollups').where('dimension_set', 'metadata').del();
  await knex.schema.dropTable('rollup_metadata_keys');
  await knex.schema.alterTable('analytics_rollups', (t) => {
    t.dropColumn('metadata_key');
    t.dropColumn('metadata_value');
  });
}
