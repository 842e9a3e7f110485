import type { Knex } from 'knex';
import { dialectOf } from '../db.js';
import { FACT_COLUMNS, rowDeltas } from './rollup-deltas.js';
import { readMetadataRollupKeys } from './metadata-keys.js';
import { applyRollupDeltas } from './rollup-write.js';

export interface BackfillProgress {
  /** Rows this run has counted into the rollups. */
  done: number;
  /** Rows still to count when the run started. */
  total: number;
}

export interface BackfillOptions {
  /** Rows per transaction. */
  batchSize?: number;
  onProgress?: (progress: BackfillProgress) => void;
  /** Stops after the batch in flight (what is committed stays counted; a later run goes on from there). */
  signal?: AbortSignal;
  /** Awaited after each committed batch, told how long it took: lets a caller pace the run. */
  afterBatch?: (batchMs: number) => Promise<void>;
}

function notRolledUp(db: Knex | Knex.Transaction): string {
  return dialectOf(db as Knex) === 'postgres' ? 'not rolled_up' : 'rolled_up = 0';
}

/** Rows not yet counted in the rollups (written before them, or by an instance that predates them). */
export async function rowsToBackfill(db: Knex): Promise<number> {
  const row = await db('request_logs').whereRaw(notRolledUp(db)).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Counts log rows written before the rollups existed into them. Each batch marks its rows
 * rolled_up and adds their deltas in one transaction, so the work is resumable at any point (an
 * interrupted run loses nothing and counts nothing twice) and safe beside the gateway writing
 * and beside another backfill (a row is counted by the transaction whose update flipped it).
 */
export async function backfillRollups(db: Knex, options: BackfillOptions = {}): Promise<BackfillProgress> {
  const batchSize = options.batchSize ?? 5000;
  const progress: BackfillProgress = { done: 0, total: await rowsToBackfill(db) };
  while (!options.signal?.aborted) {
    const started = performance.now();
    const counted = await db.transaction(async (trx) => {
      // Oldest first through the partial index: a batch's rows share their buckets as much as they can,
      // so each rollup row is upserted once for many log rows. Concurrent runs take different rows.
      const ids = trx('request_logs').select('id').whereRaw(notRolledUp(trx)).orderBy([{ column: 'organisation_id' }, { column: 'created_at' }]).limit(batchSize);
      if (dialectOf(trx as unknown as Knex) === 'postgres') ids.forUpdate().skipLocked();
      const rows = (await trx('request_logs')
        .whereIn('id', ids)
        .whereRaw(notRolledUp(trx))
        .update({ rolled_up: true }, [...FACT_COLUMNS])) as unknown as Array<Record<string, unknown>>;
      const metadataKeys = await readMetadataRollupKeys(trx);
      await applyRollupDeltas(trx, rowDeltas(rows, 1, metadataKeys));
      return rows.length;
    });
    if (!counted) break;
    progress.done += counted;
    options.onProgress?.({ ...progress });
    await options.afterBatch?.(performance.now() - started);
  }
  return progress;
}

/**
 * Empties the rollups and marks every row to be counted again: for a migration that changes
 * the dimension sets, or to count a newly listed metadata key's history. Analytics stay exact meanwhile (they read rows not rolled up raw), only
 * slower, until backfillRollups has run.
 */
export async function resetRollups(trx: Knex.Transaction): Promise<void> {
  // Writers wait until this commits: a batch landing between the two statements would be counted twice.
  if (dialectOf(trx as unknown as Knex) === 'postgres') await trx.raw('lock table analytics_rollups in exclusive mode');
  await trx('analytics_rollups').del();
  await trx('request_logs').where('rolled_up', true).update({ rolled_up: false });
  // The backfill counts every row again, so the listed metadata keys count from the start too.
  // (Earlier migrations call this before 300_metadata_rollups made the list.)
  if (await trx.schema.hasTable('rollup_metadata_keys')) await trx('rollup_metadata_keys').update({ counted_from: 0 });
}
