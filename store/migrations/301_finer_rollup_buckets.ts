import type { Knex } from 'knex';
import { resetRollups } from '../rollups/backfill.js';

/**
 * Finer rollup buckets (store/rollups/dimensions.ts): quarter hours in every dimension set, and
 * minutes in the sets of dimensions with few values (model, status, cache status, endpoint,
 * environment, listed metadata keys), so a range's raw edges shrink from up to half an hour a side to 7.5 minutes, or
 * half a minute. Hour rows cannot be split, so the rollups are counted again from the log rows:
 * each instance does that in the background at startup (gateway/logs/rollup-backfill-job.ts), and
 * analytics read the raw rows until then.
 */
export async function up(knex: Knex): Promise<void> {
  await resetRollups(knex as Knex.Transaction);
}

export async function down(): Promise<void> {
  // Nothing to undo: older code reads only the buckets it keeps, and the finer rows it leaves are exact.
}
