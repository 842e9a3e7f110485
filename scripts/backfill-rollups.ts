/**
 * Counts request logs written before the analytics rollups existed into them (store/rollups/backfill.ts),
 * against the database gw is configured with (GW_DATABASE_URL, or the SQLite file under GW_DATA_DIR).
 * Safe to run while gw serves traffic, resumable (stop it any time; the next run goes on), and it
 * prints its progress.
 *
 *   node --import tsx scripts/backfill-rollups.ts [--batch 5000]
 *   node dist/scripts/backfill-rollups.js [--batch 5000]          (after make build)
 */
import { loadConfig } from '../core/config.js';
import { createDb } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { backfillRollups, type BackfillProgress } from '../store/rollups/backfill.js';

function describe(progress: BackfillProgress, startedAt: number): string {
  const seconds = (performance.now() - startedAt) / 1000;
  const rate = progress.done / Math.max(seconds, 0.001);
  const left = Math.max(progress.total - progress.done, 0);
  const percent = progress.total ? Math.min(100, (100 * progress.done) / progress.total).toFixed(1) : '100.0';
  return `rolled up ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()} rows (${percent}%), ${Math.round(rate).toLocaleString()} rows/s, about ${Math.ceil(left / Math.max(rate, 1))} s left`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--batch');
  const batchSize = at >= 0 ? Number(args[at + 1]) : 5000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error('--batch takes a positive whole number');
  const config = loadConfig();
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  const stop = new AbortController();
  process.once('SIGINT', () => {
    console.log('stopping after the batch in flight; run again to go on');
    stop.abort();
  });
  try {
    await migrateToLatest(db);
    const startedAt = performance.now();
    const done = await backfillRollups(db, { batchSize, signal: stop.signal, onProgress: (progress) => console.log(describe(progress, startedAt)) });
    console.log(stop.signal.aborted ? `stopped: ${describe(done, startedAt)}` : `done: ${done.done.toLocaleString()} rows rolled up`);
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
