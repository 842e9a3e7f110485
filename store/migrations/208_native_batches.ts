import type { Knex } from 'knex';

/**
 * Native batches: a batch handed to the provider's own batch API keeps its mode and the ids it got
 * there (the uploaded input file, the provider's batch), so a restart resumes polling the same
 * provider batch instead of creating another (docs/files-and-batches.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('batches', (t) => {
    t.string('batch_mode', 16).notNullable().defaultTo('gateway');
    t.string('provider_input_file_id', 255);
    t.string('provider_batch_id', 255);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('batches', (t) => {
    t.dropColumn('provider_batch_id');
    t.dropColumn('provider_input_file_id');
    t.dropColumn('batch_mode');
  });
}
