import type { Knex } from 'knex';
import { resetRollups } from '../rollups/backfill.js';

/**
 * Request logs record the prompt version and label a prompt completion ran (prompt_id, which
 * the `_prompt` metadata key also fills, exists since 010); the rollups keep both, in the new
 * `prompt_version` dimension set. The rollups are recounted (resetRollups) so that set holds
 * history too: analytics read the raw rows until scripts/backfill-rollups.ts has run.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['request_logs', 'analytics_rollups']) {
    await knex.schema.alterTable(table, (t) => {
      t.integer('prompt_version').nullable();
      t.string('prompt_label', 64).nullable();
    });
  }
  await resetRollups(knex as Knex.Transaction);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['request_logs', 'analytics_rollups']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('prompt_label');
      t.dropColumn('prompt_version');
    });
  }
}
