import type { Knex } from 'knex';
import { resetRollups } from '../rollups/backfill.js';

/**
 * Every dimension set gains quarter-hour buckets (store/rollups/dimensions.ts), so a range's raw
 * edges shrink from up to half an hour to up to 7.5 minutes on each side. Hour rows cannot be split,
 * so the rollups are counted again from the log rows: each instance does that in the background
 * at startup (gateway/logs/rollup-backfill-job.ts), and analytics read the raw rows until then.
 */
export async function up(knex: Knex): Promise<void> {
  await resetRollups(knex as Knex.Transaction);
}

export async function down(): Promise<void> {
  // Nothing to undo: older code reads only the buckets it keeps, and the quarter-hour rows it leaves are exact.
}
