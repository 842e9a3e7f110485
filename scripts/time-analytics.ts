/**
 * Times every analytics call (and the logs list, export count and a retention batch) over
 * synthetic request logs on Postgres. Not part of the test suite.
 *
 *   node --import tsx scripts/time-analytics.ts [postgres-url] [rows]
 *   node --import tsx scripts/time-analytics.ts [postgres-url] --schema <already-seeded-schema>
 *
 * Defaults: postgres://postgres@127.0.0.1:5432/test and 1,000,000 rows, seeded by
 * scripts/seed-logs.ts into a dedicated schema (timeseries_<random>) that is dropped at the end,
 * also on failure. With --schema the given, already seeded schema is used and kept.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import knexFactory, { type Knex } from 'knex';
import { LogAnalytics } from '../store/log-analytics.js';
import type { LogFilter } from '../store/log-filter.js';
import { Store } from '../store/store.js';
import { openSeedDb, SEED_END, SEED_START, seedLogs, type SeededLogs } from './seed-logs.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

async function timed(label: string, work: () => Promise<unknown>, runs = 3): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${sorted[Math.floor(runs / 2)]!.toFixed(1).padStart(8)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
}

/** The ids of a schema seeded earlier (one organisation). */
async function seededIds(db: Knex): Promise<SeededLogs> {
  const org = await db('request_logs').first('organisation_id');
  if (!org) throw new Error('the schema has no request logs');
  const workspaces = await db('request_logs').distinct('workspace_id').where('organisation_id', org.organisation_id).limit(10);
  const keys = await db('request_logs').distinct('api_key_id').where('organisation_id', org.organisation_id).limit(10);
  return {
    organisationId: org.organisation_id,
    workspaceIds: workspaces.map((row: { workspace_id: string }) => row.workspace_id),
    apiKeyIds: keys.map((row: { api_key_id: string }) => row.api_key_id),
    start: SEED_START,
    end: SEED_END,
  };
}

async function timeEverything(db: Knex, ids: SeededLogs): Promise<void> {
  const analytics = new LogAnalytics(db);
  const store = new Store(db);
  const month: LogFilter = { organisation_id: ids.organisationId, start: ids.start, end: ids.end };
  const week: LogFilter = { ...month, start: ids.end - 7 * DAY };
  const day: LogFilter = { ...month, start: ids.end - DAY };
  const rows = Number((await db('request_logs').where('organisation_id', ids.organisationId).count({ n: '*' }))[0]!.n);
  // Timings on a shared machine follow its load: print it with them.
  console.log(`${rows.toLocaleString()} rows over 30 days; the 30-day calls read all of them; load average ${loadavg()[0]!.toFixed(1)}\n`);

  await timed('summary, 30 days', () => analytics.summary(month));
  await timed('summary, 7 days (the default range)', () => analytics.summary(week));
  await timed('summary, 30 days, one workspace', () => analytics.summary({ ...month, workspace_id: ids.workspaceIds[0] }));
  await timed('summary, 30 days, metadata env=prod', () => analytics.summary({ ...month, metadata: { env: 'prod' } }));
  await timed('feedback totals, 30 days', () => analytics.feedback(month));
  for (const dimension of ['model', 'provider', 'user', 'api_key', 'workspace', 'status'] as const) {
    await timed(`groups by ${dimension}, 30 days`, () => analytics.groups(month, dimension));
  }
  await timed('groups by metadata.env, 30 days', () => analytics.groups(month, 'metadata', 'env'));
  await timed('groups by model, 7 days', () => analytics.groups(week, 'model'));
  await timed('time series, 30 days by day', () => analytics.timeSeries(month, 'day'));
  await timed('time series, 7 days by hour', () => analytics.timeSeries(week, 'hour'));
  await timed('time series, 1 day by hour', () => analytics.timeSeries(day, 'hour'));
  await timed('time series, 6 hours by minute', () => analytics.timeSeries({ ...month, start: ids.end - 6 * HOUR }, 'minute'));
  await timed('feedback series, 30 days by day', () => analytics.feedback(month, { grain: 'day' }));
  await timed('logs list, first page (20)', () => store.requestLogs.list(month, { limit: 20 }));
  const page = await store.requestLogs.list(month, { limit: 20 });
  await timed('logs list, second page via cursor', () => store.requestLogs.list(month, { limit: 20, cursor: page.next_cursor! }));
  await timed('logs list, status 5xx', () => store.requestLogs.list({ ...month, status: ['5xx'] }, { limit: 20 }));
  await timed('logs list, metadata _user=user-7', () => store.requestLogs.list({ ...month, metadata: { _user: 'user-7' } }, { limit: 20 }));
  await timed('logs list, one API key', () => store.requestLogs.list({ ...month, api_key_id: ids.apiKeyIds[3] }, { limit: 20 }));
  await timed('export count, 30 days, model gpt-4o', () => store.requestLogs.count({ ...month, model: 'gpt-4o' }));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const url = args[0] && !args[0].startsWith('--') ? args[0] : 'postgres://postgres@127.0.0.1:5432/test';
  const at = args.indexOf('--schema');
  const existing = at >= 0 ? args[at + 1] : undefined;
  if (!url.startsWith('postgres')) throw new Error('the timings are for Postgres');
  const schema = existing ?? `timeseries_${randomBytes(4).toString('hex')}`;
  const db = await openSeedDb(url, schema);
  try {
    let ids: SeededLogs;
    if (existing) ids = await seededIds(db);
    else {
      const rows = Number(args.find((arg, i) => i > 0 && /^\d+$/.test(arg)) ?? 1_000_000);
      const started = performance.now();
      ids = await seedLogs(db, rows);
      console.log(`seeded ${rows.toLocaleString()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      // Sets the visibility map so aggregates can use index-only scans, as autovacuum would in time.
      await db.raw('vacuum analyze request_logs');
    }
    await timeEverything(db, ids);
    if (!existing) await timed('retention delete batch (1000 oldest rows)', () => new Store(db).requestLogs.deleteOlderThan(ids.start + DAY, 1000), 1);
    console.log(`\nload average at the end ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await db.destroy();
    if (!existing) {
      const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${schema}" cascade`);
      await admin.destroy();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
