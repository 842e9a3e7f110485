import type { Knex } from 'knex';

/**
 * Assistants, threads, messages, runs and run steps (OpenAI Assistants v2, executed by gw). Each
 * row keeps its wire object in `body`; the columns beside it are what lookups, lists and the run
 * executor filter on. `position` orders lists (epoch ms x 1000 + a counter, so objects made in
 * the same millisecond keep their order); ids are `asst_…`, `thread_…`, `msg_…`, `run_…`, `step_…`.
 */
const TABLES = ['assistants', 'assistant_threads', 'assistant_messages', 'assistant_runs', 'assistant_run_steps'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.createTable(table, (t) => {
      t.string('id', 64).primary();
      t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
      t.string('workspace_id', 36).notNullable();
      t.string('thread_id', 64).nullable();
      t.string('run_id', 64).nullable();
      t.bigInteger('position').notNullable();
      t.jsonb('body').notNullable();
      if (table === 'assistant_runs') {
        // queued | in_progress | requires_action | cancelling | terminal ones: what the executor and the expiry sweep read.
        t.string('status', 16).notNullable();
        // Execution state: the caller's principal, the sealed provider-selection headers, the pending tool calls.
        t.jsonb('state').nullable();
        // Which instance holds the run and until when (epoch ms): another may take it over once the lease lapses.
        t.string('lease_owner', 64).nullable();
        t.bigInteger('lease_until').nullable();
        t.index(['status', 'lease_until']);
      }
      t.index(['workspace_id', 'thread_id', 'position']);
      t.index(['thread_id', 'run_id']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...TABLES].reverse()) await knex.schema.dropTableIfExists(table);
}
