/**
 * Rows per second of the request-log writer (log rows and their rollups, batches of 100 as the
 * gateway writes them), with no metadata key rolled up and with one and three: what listing keys
 * in GW_ROLLUP_METADATA_KEYS costs the write path. Not part of the test suite.
 *
 *   node --import tsx scripts/time-log-writes.ts <postgres-url | sqlite-file> [--rows 20000]
 *
 * On Postgres it works in a schema of its own (`log_write_bench`, dropped at the end); a SQLite
 * file is written through the writer thread, as gw does, and should be a scratch file.
 */
import { loadavg } from 'node:os';
import knexFactory from 'knex';
import { RequestLogsRepository, ThreadedRequestLogWriter } from '../store/repositories/request-logs.js';
import { setMetadataRollupKeys } from '../store/rollups/metadata-keys.js';
import { SqliteWriterThread } from '../store/sqlite-writer-thread.js';
import { newSeedIds, openSeedDb, syntheticEntries } from './seed-logs.js';

const SCHEMA = 'log_write_bench';
const BATCH = 100;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const url = args[0];
  if (!url || url.startsWith('--')) throw new Error('usage: time-log-writes.ts <postgres-url | sqlite-file> [--rows 20000]');
  const at = args.indexOf('--rows');
  const rows = at >= 0 ? Number(args[at + 1]) : 20_000;
  const postgres = url.startsWith('postgres');
  const db = await openSeedDb(url, SCHEMA);
  const thread = postgres ? undefined : new SqliteWriterThread(url);
  const writer = thread ? new ThreadedRequestLogWriter(thread, { outbox: false }) : new RequestLogsRepository(db);
  console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
  try {
    // Each list twice, interleaved, so a change in the machine's load hits all of them.
    for (const round of [1, 2]) {
      for (const keys of [[], ['env'], ['env', 'team', 'region']]) {
        await setMetadataRollupKeys(db, keys, 0);
        // As traffic arrives: a batch spans seconds (20 rows a second), not the 30 days the analytics seed spreads rows over.
        const end = Date.now();
        const ids = { ...newSeedIds(), start: end - rows * 50, end };
        const batches = [...syntheticEntries(rows, ids, BATCH)];
        // The writers read the list at most every 10 s: wait it out so this run uses the new one.
        await new Promise((resolve) => setTimeout(resolve, 10_500));
        const started = performance.now();
        for (const batch of batches) await writer.insertMany(batch);
        const seconds = (performance.now() - started) / 1000;
        console.log(`round ${round}, keys rolled up [${keys.join(', ')}]: ${Math.round(rows / seconds).toLocaleString()} rows/s`);
      }
    }
    console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await thread?.close();
    await db.destroy();
    if (postgres) {
      const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${SCHEMA}" cascade`);
      await admin.destroy();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
