/**
 * Times every analytics call (and the logs list, export count and feedback) over synthetic
 * request logs on Postgres, at one or two sizes, and prints each call's median at both, the ratio
 * between them and the targets (every analytics call under 200 ms at the larger size; the ratio
 * under 1.5 for every call the rollups serve). Not part of the test suite.
 *
 *   node --import tsx scripts/time-analytics.ts [postgres-url] [--rows 1000000,10000000] [--force] [--seed-only] [--rollups] [--retention] [--drop]
 *
 * Each size is seeded once with COPY (scripts/copy-seed.ts: rows and their rollups) into a schema
 * of its own, `analytics_bench_<rows>`, and kept: a later run times it again without seeding
 * (--force seeds it again; an interrupted seed is started again; --rollups builds only the rollups
 * again, from the kept log rows, after a change to what they hold: only the sets the calls read,
 * the part of the range `--part k/n` says, so n processes can share it; `--sets a,b` only those sets). --seed-only seeds and stops;
 * --retention also times a retention batch (it deletes rows, so the next run seeds again); --drop
 * drops the schemas at the end. 10 million rows take about 12 GB of disk while they are kept.
 */
import { loadavg } from 'node:os';
import knexFactory, { type Knex } from 'knex';
import { LogAnalytics } from '../store/log-analytics.js';
import type { LogFilter } from '../store/log-filter.js';
import { Store } from '../store/store.js';
import { rebuildRollups, schemaFor, seededSchema, TIMED_SETS } from './copy-seed.js';
import type { SeededLogs } from './seed-logs.js';

const MAX_COPY_ROWS = 20_000_000;

const DAY = 86_400_000;
const HOUR = 3_600_000;

interface Timing {
  label: string;
  median: number;
  /** Served by the rollups (the 10M/1M target applies); the rest read raw rows by design. */
  rollups: boolean;
}

async function timed(out: Timing[], label: string, rollups: boolean, work: () => Promise<unknown>, runs = 5): Promise<void> {
  await work(); // warm: plans cached, pages in memory, as on a dashboard being used
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  out.push({ label, median, rollups });
  console.log(`${label.padEnd(50)} median ${median.toFixed(1).padStart(8)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
}

async function timeEverything(db: Knex, ids: SeededLogs): Promise<Timing[]> {
  const out: Timing[] = [];
  const analytics = new LogAnalytics(db);
  const store = new Store(db);
  // "The last 30 days" as a dashboard asks at 23:52:42.877: the range edges fall inside minutes, hours and days.
  const end = ids.end - 437_123;
  const month: LogFilter = { organisation_id: ids.organisationId, start: end - 30 * DAY, end };
  const week: LogFilter = { ...month, start: end - 7 * DAY };
  const day: LogFilter = { ...month, start: end - DAY };
  const rows = Number((await db('request_logs').where('organisation_id', ids.organisationId).count({ n: '*' }))[0]!.n);
  // Timings on a shared machine follow its load: print it with them.
  console.log(`${rows.toLocaleString()} rows over 30 days; load average ${loadavg()[0]!.toFixed(1)}\n`);

  await timed(out, 'summary, 30 days', true, () => analytics.summary(month));
  await timed(out, 'summary, 7 days (the default range)', true, () => analytics.summary(week));
  await timed(out, 'summary, 30 days, one workspace', true, () => analytics.summary({ ...month, workspace_id: ids.workspaceIds[0] }));
  await timed(out, 'summary, 30 days, model gpt-4o and 5xx', true, () => analytics.summary({ ...month, model: 'gpt-4o', status: ['5xx'] }));
  await timed(out, 'summary, 30 days, metadata env=prod', true, () => analytics.summary({ ...month, metadata: { env: 'prod' } }));
  await timed(out, 'feedback totals, 30 days', false, () => analytics.feedback(month));
  for (const dimension of ['model', 'provider', 'user', 'api_key', 'workspace', 'status', 'cache_status'] as const) {
    await timed(out, `groups by ${dimension}, 30 days`, true, () => analytics.groups(month, dimension));
  }
  await timed(out, 'groups by api_key, 30 days, model gpt-4o', true, () => analytics.groups({ ...month, model: 'gpt-4o' }, 'api_key'));
  await timed(out, 'groups by metadata.env, 30 days', true, () => analytics.groups(month, 'metadata', 'env'));
  await timed(out, 'groups by model, 7 days', true, () => analytics.groups(week, 'model'));
  await timed(out, 'time series, 30 days by day', true, () => analytics.timeSeries(month, 'day'));
  await timed(out, 'time series, 30 days by day, Asia/Kolkata', true, () => analytics.timeSeries(month, 'day', 'Asia/Kolkata'));
  await timed(out, 'time series, 7 days by hour', true, () => analytics.timeSeries(week, 'hour'));
  await timed(out, 'time series, 1 day by hour', true, () => analytics.timeSeries(day, 'hour'));
  await timed(out, 'time series, 6 hours by minute', true, () => analytics.timeSeries({ ...month, start: end - 6 * HOUR }, 'minute'));
  await timed(out, 'time series, 7 days by hour, user-7', true, () => analytics.timeSeries({ ...week, metadata: { _user: 'user-7' } }, 'hour'));
  await timed(out, 'time series, 7 days by hour, env=prod', true, () => analytics.timeSeries({ ...week, metadata: { env: 'prod' } }, 'hour'));
  await timed(out, 'feedback series, 30 days by day', false, () => analytics.feedback(month, { grain: 'day' }));
  await timed(out, 'export count, 30 days, model gpt-4o', true, () => store.requestLogs.count({ ...month, model: 'gpt-4o' }));
  await timed(out, 'logs list, first page (20)', false, () => store.requestLogs.list(month, { limit: 20 }));
  const page = await store.requestLogs.list(month, { limit: 20 });
  await timed(out, 'logs list, second page via cursor', false, () => store.requestLogs.list(month, { limit: 20, cursor: page.next_cursor! }));
  await timed(out, 'logs list, metadata _user=user-7', false, () => store.requestLogs.list({ ...month, metadata: { _user: 'user-7' } }, { limit: 20 }));
  return out;
}

/** Times every call over the seeded schema of `rows`; the retention batch last, as it deletes rows (and tells the next run to seed again). */
async function measure(url: string, rows: number, options: { force: boolean; retention: boolean }): Promise<Timing[]> {
  const { db, ids } = await seededSchema(url, rows, options.force);
  try {
    const timings = await timeEverything(db, ids);
    if (options.retention) {
      await db('bench_seed').del();
      await timed(timings, 'retention delete batch (1000 oldest rows)', false, () => new Store(db).requestLogs.deleteOlderThan(ids.start + DAY, 1000), 1);
    }
    return timings;
  } finally {
    await db.destroy();
  }
}

function table(small: Timing[], large: Timing[], sizes: [number, number]): string {
  const name = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n.toLocaleString());
  const lines = [`| call | ${name(sizes[0])} median (ms) | ${name(sizes[1])} median (ms) | ratio | targets |`, '| --- | ---: | ---: | ---: | --- |'];
  for (const big of large) {
    const little = small.find((t) => t.label === big.label);
    if (!little) continue;
    const ratio = big.median / little.median;
    const analyticsCall = !big.label.startsWith('logs list') && !big.label.startsWith('retention');
    const checks = [
      analyticsCall ? (big.median < 200 ? '< 200 ms: yes' : '< 200 ms: NO') : '',
      big.rollups ? (ratio < 1.5 ? 'ratio < 1.5: yes' : 'ratio < 1.5: NO') : '',
    ].filter(Boolean);
    lines.push(`| ${big.label} | ${little.median.toFixed(1)} | ${big.median.toFixed(1)} | ${ratio.toFixed(2)} | ${checks.join(', ')} |`);
  }
  return lines.join('\n');
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const url = args[0] && !args[0].startsWith('--') ? args[0] : 'postgres://postgres@127.0.0.1:5432/test';
  if (!url.startsWith('postgres')) throw new Error('the timings are for Postgres');
  const sizes = (option(args, '--rows') ?? '1000000,10000000').split(',').map(Number);
  if (sizes.length > 2 || sizes.some((n) => !Number.isSafeInteger(n) || n < 1 || n > MAX_COPY_ROWS)) throw new Error(`--rows takes one or two sizes of 1..${MAX_COPY_ROWS}, such as 1000000,10000000`);
  const force = args.includes('--force');
  if (args.includes('--rollups')) {
    // --part 2/3: this process builds the second third (run three at once to share the work).
    const [part, parts] = (option(args, '--part') ?? '1/1').split('/').map(Number) as [number, number];
    // --sets model,metadata: only those sets (after a change to them alone).
    const names = option(args, '--sets')?.split(',');
    const sets = names ? TIMED_SETS.filter((set) => names.includes(set.name)) : TIMED_SETS;
    if (names && sets.length !== names.length) throw new Error(`--sets takes names from: ${TIMED_SETS.map((set) => set.name).join(', ')}`);
    for (const rows of sizes) {
      const { db, ids } = await seededSchema(url, rows, force);
      await rebuildRollups(db, rows, ids, { part, parts, sets });
      await db.raw('analyze analytics_rollups');
      await db.destroy();
    }
    return;
  }
  if (args.includes('--seed-only')) {
    for (const rows of sizes) await (await seededSchema(url, rows, force)).db.destroy();
    return;
  }
  const options = { force, retention: args.includes('--retention') };
  const results: Timing[][] = [];
  for (const rows of sizes) {
    console.log(`\n== ${rows.toLocaleString()} rows ==`);
    results.push(await measure(url, rows, options));
  }
  if (results.length === 2) console.log(`\n${table(results[0]!, results[1]!, sizes as [number, number])}`);
  console.log(`\nload average at the end ${loadavg()[0]!.toFixed(1)}`);
  if (args.includes('--drop')) {
    const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    for (const rows of sizes) await admin.raw(`drop schema if exists "${schemaFor(rows)}" cascade`);
    await admin.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
