/**
 * Times a log export of N synthetic rows on Postgres (default 1,000,000): the schema that
 * scripts/time-analytics.ts seeds for that size (seeded here with COPY when missing, and kept),
 * exported by the same runner gw uses (keyset pages of 1,000 rows appended to a JSON-lines file),
 * with the rate and the process's peak memory, which stays flat however many rows there are.
 * Not part of the test suite.
 *
 *   node --import tsx scripts/time-export.ts [postgres-url] [rows]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { LogExportRunner } from '../gateway/logs/log-export-runner.js';
import { Store } from '../store/store.js';
import { seededSchema } from './copy-seed.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const url = args.find((arg) => arg.startsWith('postgres')) ?? 'postgres://postgres@127.0.0.1:5432/test';
  const rows = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 1_000_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-export-'));
  const { db, ids } = await seededSchema(url, rows, false);
  try {
    const store = new Store(db);
    const now = new Date().toISOString();
    const record = await store.logExports.create(
      { organisation_id: ids.organisationId, workspace_id: null, description: 'timing', filters: {}, requested_fields: ['id', 'created_at', 'model', 'status', 'cost', 'request', 'response'], created_by: null },
      now,
    );
    const counted = performance.now();
    const total = await store.requestLogs.count({ organisation_id: ids.organisationId });
    const countMs = performance.now() - counted;
    await store.logExports.transition(record.id, ['draft'], 'in_progress', { total_rows: total, started_at: now }, now);
    const runner = new LogExportRunner(store, { dir }, () => Date.now(), pino({ level: 'silent' }));
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
    const started = performance.now();
    runner.run(record.id);
    await runner.idle();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const done = await store.logExports.getById(record.id);
    const bytes = statSync(runner.filePath(record.id)).size;
    console.log(`load average ${loadavg()[0]!.toFixed(1)}; count ${total.toLocaleString()} in ${countMs.toFixed(0)} ms (rollups); exported ${done?.processed_rows.toLocaleString()} rows (${(bytes / 1e6).toFixed(0)} MB) in ${seconds.toFixed(1)} s: ${Math.round((done?.processed_rows ?? 0) / seconds).toLocaleString()} rows/s; peak RSS ${(peak / 1e6).toFixed(0)} MB; status ${done?.status}`);
  } finally {
    // The export's own record goes; the seeded rows stay for the next run.
    await db('log_exports').where('description', 'timing').del();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
