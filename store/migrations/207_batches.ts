import type { Knex } from 'knex';

/**
 * Batches (`/v1/batches`) and their lines. Each input line is a row with its own state, claim and
 * result, so a batch resumes after a restart line by line: a line's result is written once, by the
 * runner holding its claim (docs/files-and-batches.md). Times are epoch milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('batches', (t) => {
    t.string('id', 64).primary();
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).notNullable();
    t.string('endpoint', 64).notNullable();
    t.string('input_file_id', 64).notNullable();
    t.string('completion_window', 16).notNullable();
    t.string('status', 16).notNullable();
    t.string('output_file_id', 64);
    t.string('error_file_id', 64);
    t.string('internal_output_file_id', 64);
    t.text('errors');
    t.text('metadata');
    t.integer('total').notNullable().defaultTo(0);
    t.integer('completed').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    // Who created it and the gateway headers they sent (sealed: they may carry a provider key), to run each line as they would have.
    t.text('principal').notNullable();
    t.text('sealed_headers').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('in_progress_at');
    t.bigInteger('finalizing_at');
    t.bigInteger('completed_at');
    t.bigInteger('failed_at');
    t.bigInteger('expired_at');
    t.bigInteger('cancelling_at');
    t.bigInteger('cancelled_at');
    t.index(['workspace_id', 'created_at', 'id'], 'batches_workspace_created');
    t.index(['status'], 'batches_status');
  });
  await knex.schema.createTable('batch_lines', (t) => {
    t.string('batch_id', 64).notNullable();
    t.integer('line').notNullable();
    t.string('custom_id', 512);
    t.text('request').notNullable();
    t.string('status', 16).notNullable();
    t.string('claim', 36);
    t.bigInteger('lease_until');
    t.bigInteger('not_before');
    t.text('result');
    t.boolean('succeeded');
    t.primary(['batch_id', 'line']);
    t.index(['batch_id', 'status'], 'batch_lines_batch_status');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('batch_lines');
  await knex.schema.dropTable('batches');
}
