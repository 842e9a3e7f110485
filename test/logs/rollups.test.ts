/**
 * Analytics rollups (store/rollups/): written with the log rows, equal to the raw aggregation
 * whatever the range, filter, grouping and time zone, consistent across concurrent writers,
 * retried batches, retention deletes and an interrupted backfill.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { LogRetentionJob } from '../../gateway/logs/log-retention.js';
import { giveWayMs, RollupBackfillJob } from '../../gateway/logs/rollup-backfill-job.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { createDb } from '../../store/db.js';
import { LogAnalytics, type AnalyticsTotals, type GroupDimension } from '../../store/log-analytics.js';
import type { LogFilter } from '../../store/log-filter.js';
import { migrateToLatest } from '../../store/migrate.js';
import { RequestLogsRepository, ThreadedRequestLogWriter } from '../../store/repositories/request-logs.js';
import { addAllWorkspaceRows } from '../../store/migrations/280_all_workspace_rollups.js';
import { foldGrain } from '../../store/migrations/282_week_and_quarter_rollups.js';
import * as finerRollupBuckets from '../../store/migrations/301_finer_rollup_buckets.js';
import { backfillRollups, resetRollups, rowsToBackfill } from '../../store/rollups/backfill.js';
import { OTHER_VALUE, readMetadataRollupKeys, setMetadataRollupKeys } from '../../store/rollups/metadata-keys.js';
import { ALL_WORKSPACES } from '../../store/rollups/rollup-deltas.js';
import { SqliteWriterThread } from '../../store/sqlite-writer-thread.js';
import { storeEngines } from '../helpers/engines.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sharedDb } from '../helpers/test-db.js';
import { logEntry } from './log-fixtures.js';
import { assertRollupsMatchRows } from './rollup-check.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Three days around the end of US daylight saving time (2026-11-01), starting at an odd instant. */
const T0 = Date.parse('2026-10-30T21:17:43.123Z');
const SPAN = 3 * DAY;
const silent = pino({ level: 'silent' });

const MODELS = [['openai', 'gpt-4o'], ['openai', 'gpt-4o-mini'], ['anthropic', 'claude-sonnet-4-5']] as const;
const STATUSES = [200, 200, 200, 200, 201, 400, 429, 500, 503];
const CACHE = ['MISS', 'MISS', 'HIT', 'SEMANTIC HIT', 'DISABLED'] as const;

/** Latencies with zeros, ties, small values and a heavy tail: what percentiles trip over. */
function latency(rand: () => number): number {
  const roll = rand();
  if (roll < 0.03) return 0;
  if (roll < 0.1) return 100;
  if (roll < 0.25) return 1 + Math.floor(rand() * 20);
  return Math.floor(40 * Math.exp(rand() * 6));
}

function randomLogs(rand: () => number, n: number, ids: { organisation_id: string; workspaces: string[]; keys: string[] }, from = T0, span = SPAN): RequestLogEntry[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  return Array.from({ length: n }, () => {
    const [provider, model] = pick(MODELS);
    const metadata: Record<string, string> = {};
    if (rand() < 0.8) metadata._user = `u${Math.floor(rand() * 4)}`;
    if (rand() < 0.5) metadata._environment = pick(['prod', 'dev']);
    // Now and then a value too long for the metadata rollups (they count it as "other").
    if (rand() < 0.6) metadata.team = rand() < 0.05 ? `t${'x'.repeat(80)}` : pick(['a', 'b']);
    const prompt = Math.floor(rand() * 500);
    const completion = Math.floor(rand() * 300);
    return logEntry({
      organisation_id: ids.organisation_id,
      workspace_id: pick(ids.workspaces),
      api_key_id: pick(ids.keys),
      created_at: from + Math.floor(rand() * span),
      provider,
      model,
      status: pick(STATUSES),
      cache_status: pick(CACHE),
      latency_ms: latency(rand),
      cost: Math.round(rand() * 1e6) / 1e8,
      cost_unpriced: rand() < 0.05,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      retry_count: rand() < 0.1 ? 1 : 0,
      metadata,
    });
  });
}

/** percentile_cont over exact values. */
function exactPercentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const position = p * (sorted.length - 1);
  const low = sorted[Math.floor(position)]!;
  const high = sorted[Math.ceil(position)]!;
  return low + (high - low) * (position - Math.floor(position));
}

function referenceTotals(entries: RequestLogEntry[]): AnalyticsTotals {
  const hit = (e: RequestLogEntry) => e.cache_status === 'HIT' || e.cache_status === 'SEMANTIC HIT';
  const sum = (f: (e: RequestLogEntry) => number) => entries.reduce((n, e) => n + f(e), 0);
  const requests = entries.length;
  const latencies = entries.map((e) => e.latency_ms).sort((a, b) => a - b);
  return {
    requests,
    errors: sum((e) => (e.status >= 400 ? 1 : 0)),
    error_rate: requests ? sum((e) => (e.status >= 400 ? 1 : 0)) / requests : 0,
    cost: sum((e) => (hit(e) ? 0 : e.cost)),
    prompt_tokens: sum((e) => e.prompt_tokens),
    completion_tokens: sum((e) => e.completion_tokens),
    total_tokens: sum((e) => e.total_tokens),
    latency_avg_ms: requests ? sum((e) => e.latency_ms) / requests : null,
    latency_p50_ms: exactPercentile(latencies, 0.5),
    latency_p90_ms: exactPercentile(latencies, 0.9),
    latency_p99_ms: exactPercentile(latencies, 0.99),
    cache_hits: sum((e) => (hit(e) ? 1 : 0)),
    cache_hit_rate: requests ? sum((e) => (hit(e) ? 1 : 0)) / requests : 0,
    cache_savings: sum((e) => (hit(e) ? e.cost : 0)),
    rescued_requests: sum((e) => (e.status < 400 && (e.retry_count > 0 || e.route.length > 1) ? 1 : 0)),
    unpriced_requests: sum((e) => (e.cost_unpriced ? 1 : 0)),
  };
}

function assertTotals(actual: AnalyticsTotals, expected: AnalyticsTotals, what: string): void {
  for (const field of ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cache_hits', 'rescued_requests'] as const) {
    assert.equal(actual[field], expected[field], `${what}: ${field}`);
  }
  for (const field of ['cost', 'cache_savings', 'latency_avg_ms', 'error_rate', 'cache_hit_rate'] as const) {
    const [a, e] = [actual[field], expected[field]];
    assert.ok(a === e || (a !== null && e !== null && Math.abs(a - e) <= 1e-9 * Math.max(1, Math.abs(e))), `${what}: ${field} ${a} != ${e}`);
  }
  for (const field of ['latency_p50_ms', 'latency_p90_ms', 'latency_p99_ms'] as const) {
    const [a, e] = [actual[field], expected[field]];
    assert.ok(a === e || (a !== null && e !== null && Math.abs(a - e) <= 0.01 * e + 1e-9), `${what}: ${field} ${a} not within 1% of ${e}`);
  }
}

/** The entries a LogFilter selects (the filters these tests use). */
function matches(filter: LogFilter, e: RequestLogEntry): boolean {
  if (e.organisation_id !== filter.organisation_id) return false;
  if (filter.workspace_id && e.workspace_id !== filter.workspace_id) return false;
  if (filter.api_key_id && e.api_key_id !== filter.api_key_id) return false;
  if (filter.start !== undefined && e.created_at < filter.start) return false;
  if (filter.end !== undefined && e.created_at >= filter.end) return false;
  if (filter.model && e.model !== filter.model) return false;
  if (filter.provider && e.provider !== filter.provider) return false;
  if (filter.status?.length && !filter.status.some((s) => (/xx$/.test(s) ? Math.floor(e.status / 100) === Number(s[0]) : e.status === Number(s)))) return false;
  return Object.entries(filter.metadata ?? {}).every(([k, v]) => e.metadata[k] === v);
}

const GROUP_OF: Record<string, (e: RequestLogEntry) => string | null> = {
  model: (e) => e.model,
  user: (e) => e.metadata._user ?? null,
  status: (e) => String(e.status),
  cache_status: (e) => e.cache_status,
  api_key: (e) => e.api_key_id,
  workspace: (e) => e.workspace_id,
  environment: (e) => e.metadata._environment ?? null,
  team: (e) => e.metadata.team ?? null,
};

/**
 * The bucket an instant falls in, worked out with Intl alone: the local date for days; for hours
 * the instant the local hour began (when clocks fall back, 01:00 happens twice: two buckets).
 */
function localLabel(t: number, timeZone: string, grain: 'hour' | 'day'): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(t);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  if (grain === 'day') return `${part('year')}-${part('month')}-${part('day')}`;
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  const offset = Math.round((wall - (t - (t % 1000))) / MIN) * MIN;
  return new Date(t - ((((t + offset) % HOUR) + HOUR) % HOUR)).toISOString();
}

for (const engine of storeEngines()) {
  describe(`analytics rollups (${engine.name})`, () => {
    let app: TestApp;
    let db: Knex;
    let analytics: LogAnalytics;
    const rand = seededRandom(24);
    const ids = { organisation_id: randomUUID(), workspaces: [randomUUID(), randomUUID()], keys: [randomUUID(), randomUUID(), randomUUID()] };
    let entries: RequestLogEntry[] = [];

    before(async () => {
      app = await startTestApp({ engine });
      db = app.services.db;
      analytics = new LogAnalytics(db);
      entries = randomLogs(rand, 1200, ids);
      const repository = new RequestLogsRepository(db);
      // Batches of uneven sizes, in no time order, as instances and custom logs write them.
      for (let i = 0; i < entries.length; ) {
        const size = 1 + Math.floor(rand() * 150);
        await repository.insertMany(entries.slice(i, i + size));
        i += size;
      }
    });
    after(() => app.close());

    test('every batch writes its rollup deltas with it: minute to week buckets per dimension set', async () => {
      const rows = await assertRollupsMatchRows(db, 'after the inserts');
      assert.ok(rows > 0);
      const grains = await db('analytics_rollups').distinct('grain').where('organisation_id', ids.organisation_id);
      assert.deepEqual(grains.map((r: { grain: string }) => r.grain).sort(), ['day', 'hour', 'minute', 'quarter', 'week']);
      assert.equal(await rowsToBackfill(db), 0, 'new rows are counted as they are written');
    });

    test('migration 280 builds the all-workspaces rows from the per-workspace rows already counted', async () => {
      const all = await db('analytics_rollups').where('workspace_id', ALL_WORKSPACES).count({ n: '*' });
      assert.ok(Number(all[0]!.n) > 0, 'the writers keep all-workspaces rows');
      // A database from before 280: per-workspace rows only.
      await db('analytics_rollups').where('workspace_id', ALL_WORKSPACES).del();
      await assert.rejects(assertRollupsMatchRows(db, 'without them'), /rollup rows stored/);
      await addAllWorkspaceRows(db);
      await assertRollupsMatchRows(db, 'after 280');
    });

    test('migration 282 builds the week and quarter-hour rows from the day and minute rows already counted', async () => {
      for (const grain of ['week', 'quarter']) {
        const kept = await db('analytics_rollups').where('grain', grain).count({ n: '*' });
        assert.ok(Number(kept[0]!.n) > 0, `the writers keep ${grain} rows`);
      }
      // A database from before 282: no weeks, and no quarter hours beside minutes (the sets without minutes keep theirs: 282 did not build them).
      const withMinutes = db('analytics_rollups').distinct('dimension_set').where('grain', 'minute');
      await db('analytics_rollups').where('grain', 'week').orWhere((q) => q.where('grain', 'quarter').whereIn('dimension_set', withMinutes)).del();
      await assert.rejects(assertRollupsMatchRows(db, 'without them'), /rollup rows stored/);
      await foldGrain(db, 'day', 'week', 7 * DAY);
      await foldGrain(db, 'minute', 'quarter', 15 * MIN);
      await assertRollupsMatchRows(db, 'after 282');
    });

    test('a listed metadata key is counted by a reset and backfill, and by every write after it', async () => {
      await setMetadataRollupKeys(db, ['team'], Date.now() + DAY);
      await db.transaction((trx) => resetRollups(trx));
      await backfillRollups(db);
      assert.deepEqual([...(await readMetadataRollupKeys(db))], [['team', 0]], 'a reset counts the listed keys from the start');
      await assertRollupsMatchRows(db, 'with the metadata set');
      const values = await db('analytics_rollups').distinct('metadata_value').where({ organisation_id: ids.organisation_id, dimension_set: 'metadata', metadata_key: 'team' });
      assert.deepEqual(values.map((row: { metadata_value: string | null }) => row.metadata_value).sort(), ['a', 'b', OTHER_VALUE, null].sort(), 'short values, rows without the key (null) and longer ones (other)');
    });

    test('rollups equal the raw aggregation for random ranges across bucket edges, filters and groups', async () => {
      const ranges: Array<[number, number]> = [[T0, T0 + SPAN], [Date.parse('2026-10-31T00:00:00Z'), Date.parse('2026-11-02T00:00:00Z')]];
      for (let i = 0; i < 6; i++) {
        const a = T0 + Math.floor(rand() * SPAN);
        ranges.push([a, a + 1 + Math.floor(rand() * (T0 + SPAN - a))]);
      }
      const filters: Array<Omit<LogFilter, 'organisation_id' | 'start' | 'end'>> = [
        {},
        { workspace_id: ids.workspaces[0] },
        { model: 'gpt-4o' },
        { status: ['5xx'] },
        { status: ['429', '2xx'], provider: 'openai' },
        { metadata: { _user: 'u1' } },
        { api_key_id: ids.keys[1], model: 'gpt-4o-mini', status: ['2xx'] },
        { metadata: { team: 'a' } },
        { metadata: { team: 'b' }, workspace_id: ids.workspaces[1] },
        { metadata: { team: `t${'x'.repeat(80)}` } },
        { metadata: { team: 'a', _user: 'u1' } },
        { metadata: { _user: 'u2' }, model: 'gpt-4o' },
      ];
      for (const [start, end] of ranges) {
        for (const extra of filters) {
          const filter: LogFilter = { organisation_id: ids.organisation_id, start, end, ...extra };
          const selected = entries.filter((e) => matches(filter, e));
          const what = `${new Date(start).toISOString()}..${new Date(end).toISOString()} ${JSON.stringify(extra)}`;
          assertTotals(await analytics.summary(filter), referenceTotals(selected), `summary ${what}`);
          assert.equal(await analytics.count(filter), selected.length, `count ${what}`);
        }
        const filter: LogFilter = { organisation_id: ids.organisation_id, start, end };
        // Grouped by the listed key: from the rollups when every value is short, else from the rows; filtered by it, from the rollups.
        const teamA = { ...filter, metadata: { team: 'a' } };
        for (const [dimension, key, narrowed] of [['model'], ['user'], ['status'], ['cache_status'], ['api_key'], ['workspace'], ['environment'], ['metadata', 'team'], ['metadata', 'team', teamA], ['workspace', undefined, teamA]] as Array<[GroupDimension, string?, LogFilter?]>) {
          const groups = await analytics.groups(narrowed ?? filter, dimension, key);
          const byKey = new Map<string | null, RequestLogEntry[]>();
          for (const e of entries.filter((x) => matches(narrowed ?? filter, x))) {
            const k = GROUP_OF[key ?? dimension]!(e);
            byKey.set(k, [...(byKey.get(k) ?? []), e]);
          }
          assert.deepEqual(new Set(groups.map((g) => g.key)), new Set(byKey.keys()), `groups by ${key ?? dimension}`);
          for (const group of groups) assertTotals(group, referenceTotals(byKey.get(group.key)!), `group ${key ?? dimension}=${group.key}`);
        }
      }
    });

    test('long ranges (weeks, and days taken away from them) equal the raw aggregation', async () => {
      const org = randomUUID();
      const r = seededRandom(60);
      const from = T0 - 50 * DAY;
      const long = randomLogs(r, 700, { organisation_id: org, workspaces: ['w1', 'w2'], keys: ['k1', 'k2'] }, from, 60 * DAY);
      await new RequestLogsRepository(db).insertMany(long);
      const ranges: Array<[number, number]> = [[from, from + 60 * DAY], [from + 3 * DAY + 7, from + 33 * DAY - 11]];
      for (let i = 0; i < 5; i++) {
        const a = from + Math.floor(r() * 20 * DAY);
        ranges.push([a, a + 8 * DAY + Math.floor(r() * 30 * DAY)]);
      }
      let weeksRead = 0;
      for (const [start, end] of ranges) {
        const filter: LogFilter = { organisation_id: org, start, end };
        const selected = long.filter((e) => matches(filter, e));
        const what = `${new Date(start).toISOString()}..${new Date(end).toISOString()}`;
        assertTotals(await analytics.summary(filter), referenceTotals(selected), `summary ${what}`);
        for (const user of ['u0', 'u3']) {
          const mine = selected.filter((e) => e.metadata._user === user);
          assertTotals(await analytics.summary({ ...filter, metadata: { _user: user } }), referenceTotals(mine), `summary ${user} ${what}`);
        }
        const groups = await analytics.groups(filter, 'api_key');
        for (const group of groups) assertTotals(group, referenceTotals(selected.filter((e) => e.api_key_id === group.key)), `group ${group.key} ${what}`);
        const weekRows = await db('analytics_rollups').where({ organisation_id: org, grain: 'week' }).where('bucket_start', '>=', start).where('bucket_start', '<', end).count({ n: '*' });
        weeksRead += Number(weekRows[0]!.n);
      }
      assert.ok(weeksRead > 0, 'the ranges hold whole weeks');
      await db('analytics_rollups').where('organisation_id', org).del();
      await db('request_logs').where('organisation_id', org).del();
    });

    test('time series equal the raw aggregation in every time zone: local days across DST, half-hour and 45-minute offsets', async () => {
      const cases: Array<{ zone: string; grain: 'hour' | 'day'; start: number; end: number }> = [
        { zone: 'UTC', grain: 'day', start: T0, end: T0 + SPAN },
        { zone: 'America/New_York', grain: 'day', start: T0, end: T0 + SPAN },
        { zone: 'Asia/Kolkata', grain: 'day', start: T0 + 7, end: T0 + SPAN - 11 },
        { zone: 'Asia/Kathmandu', grain: 'hour', start: T0 + 5 * HOUR + 123, end: T0 + 30 * HOUR },
        { zone: 'America/New_York', grain: 'hour', start: Date.parse('2026-11-01T03:10:00Z'), end: Date.parse('2026-11-01T09:50:00Z') },
      ];
      for (const { zone, grain, start, end } of cases) {
        for (const extra of [{}, { model: 'gpt-4o-mini' }, { metadata: { _user: 'u3' } }, { metadata: { team: 'b' } }] as Array<Partial<LogFilter>>) {
          const filter: LogFilter = { organisation_id: ids.organisation_id, start, end, ...extra };
          const points = await analytics.timeSeries(filter, grain, zone);
          const expected = new Map<string, RequestLogEntry[]>();
          for (const e of entries.filter((x) => matches(filter, x))) {
            const label = localLabel(e.created_at, zone, grain);
            expected.set(label, [...(expected.get(label) ?? []), e]);
          }
          const what = `${zone} ${grain} ${JSON.stringify(extra)}`;
          assert.deepEqual(points.map((p) => localLabel(p.timestamp, zone, grain)), [...expected.keys()].sort(), `${what}: one point per local ${grain}`);
          for (const point of points) {
            // Each point is stamped with the start of its local bucket.
            assert.equal(localLabel(point.timestamp - 1, zone, grain) === localLabel(point.timestamp, zone, grain), false, `${what}: ${new Date(point.timestamp).toISOString()} starts a bucket`);
            assertTotals(point, referenceTotals(expected.get(localLabel(point.timestamp, zone, grain))!), `${what} at ${new Date(point.timestamp).toISOString()}`);
          }
        }
      }
    });

    test('the time series endpoint takes a time zone and refuses an unknown one', async () => {
      const workspaceId = app.boot.workspaceId;
      const own = randomLogs(rand, 60, { organisation_id: app.boot.organisationId, workspaces: [workspaceId], keys: ids.keys });
      await new RequestLogsRepository(db).insertMany(own);
      const query = { start_time: new Date(T0).toISOString(), end_time: new Date(T0 + SPAN).toISOString(), bucket: 'day', time_zone: 'Asia/Kolkata' };
      const res = await app.http.get('/v1/analytics/time-series').query(query).set({ 'x-gw-api-key': app.adminKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.time_zone, 'Asia/Kolkata');
      for (const point of res.body.data) assert.match(point.timestamp, /T18:30:00\.000Z$/, 'Indian midnight');
      assert.equal(res.body.data.reduce((n: number, p: { requests: number }) => n + p.requests, 0), own.length);
      const bad = await app.http.get('/v1/analytics/time-series').query({ ...query, time_zone: 'Mars/Olympus' }).set({ 'x-gw-api-key': app.adminKey });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'time_zone');
      const byCache = await app.http.get('/v1/analytics/groups/cache_status').query({ start_time: query.start_time, end_time: query.end_time }).set({ 'x-gw-api-key': app.adminKey });
      assert.equal(byCache.status, 200, JSON.stringify(byCache.body));
      assert.equal(byCache.body.data.reduce((n: number, g: { requests: number }) => n + g.requests, 0), own.length);
    });

    test('percentiles stay within 1% of the exact value for skewed, tied and zero latencies', async () => {
      const org = randomUUID();
      const r = seededRandom(7);
      const distributions: Array<[string, () => number]> = [
        ['lognormal', () => Math.floor(Math.exp(3 + r() * 7))],
        ['ties', () => [5, 5, 5, 80, 80, 1200][Math.floor(r() * 6)]!],
        ['uniform', () => Math.floor(r() * 100_000)],
        ['zeros', () => (r() < 0.6 ? 0 : 1 + Math.floor(r() * 3))],
      ];
      const all: RequestLogEntry[] = [];
      for (const [name, draw] of distributions) {
        for (let i = 0; i < 800; i++) all.push(logEntry({ organisation_id: org, workspace_id: 'w', model: name, created_at: T0 + Math.floor(r() * SPAN), latency_ms: draw() }));
      }
      await new RequestLogsRepository(db).insertMany(all);
      const filter = { organisation_id: org, start: T0, end: T0 + SPAN };
      const groups = await analytics.groups(filter, 'model');
      assert.equal(groups.length, distributions.length);
      for (const group of groups) {
        const sorted = all.filter((e) => e.model === group.key).map((e) => e.latency_ms).sort((a, b) => a - b);
        for (const [p, field] of [[0.5, 'latency_p50_ms'], [0.9, 'latency_p90_ms'], [0.99, 'latency_p99_ms']] as const) {
          const exact = exactPercentile(sorted, p)!;
          const got = group[field]!;
          assert.ok(Math.abs(got - exact) <= 0.01 * exact + 1e-9, `${group.key} ${field}: ${got} vs exact ${exact}`);
        }
      }
    });

    test('whole buckets are read from the rollups, not the rows; edges from the rows', async () => {
      const org = randomUUID();
      const day = Date.parse('2026-11-10T00:00:00Z');
      const logs = Array.from({ length: 48 }, (_, i) => logEntry({ organisation_id: org, workspace_id: 'w', created_at: day + i * 30 * MIN + 1000, model: 'gpt-4o', metadata: { team: 'a', squad: 'x' } }));
      await new RequestLogsRepository(db).insertMany(logs);
      // Rows removed behind the rollups' back: only an answer from the rollups still counts them.
      await db('request_logs').where('organisation_id', org).del();
      const whole = { organisation_id: org, start: day, end: day + DAY };
      assert.equal((await analytics.summary(whole)).requests, 48, 'a whole day: the day rollup');
      assert.equal(await analytics.count({ ...whole, model: 'gpt-4o' }), 48, 'an export count: the model rollup');
      // Up to 01:30:01.500: the row at 01:30:01 sits in a small partial minute, read from the (emptied) rows; 3 earlier ones in rollups.
      assert.equal((await analytics.summary({ ...whole, end: day + 90 * MIN + 1500 })).requests, 3, 'a small edge is read raw, the rest from rollups');
      // From 01:30:00.500: most of that minute is in range, so it is the whole minute's rollup minus the rows before 01:30:00.500.
      assert.equal((await analytics.summary({ ...whole, start: day + 90 * MIN + 500 })).requests, 45, 'a large edge is its whole bucket minus the rest');
      assert.equal((await analytics.summary({ ...whole, metadata: { squad: 'x' } })).requests, 0, 'a metadata key not listed: the raw rows');
      assert.equal((await analytics.summary({ ...whole, metadata: { team: 'a' } })).requests, 48, 'a listed metadata key: the metadata rollups');
      assert.deepEqual((await analytics.groups(whole, 'metadata', 'team')).map((g) => [g.key, g.requests]), [['a', 48]], 'grouped by a listed key: the metadata rollups');
      // A key listed later counts from then: earlier buckets are read from the rows.
      await setMetadataRollupKeys(db, ['team', 'squad'], day + DAY / 2);
      await db('analytics_rollups').insert({ ...(await db('analytics_rollups').where({ organisation_id: org, dimension_set: 'metadata', grain: 'day' }).first()), dims_key: '["squad","x"]', metadata_key: 'squad', metadata_value: 'x' });
      assert.equal((await analytics.summary({ ...whole, metadata: { squad: 'x' } })).requests, 0, 'before counted_from: the raw rows');
      await setMetadataRollupKeys(db, ['team']);
      assert.equal(Number((await db('analytics_rollups').where({ dimension_set: 'metadata', metadata_key: 'squad' }).count({ n: '*' }))[0]!.n), 0, 'a key no longer listed loses its rollups');
      // Without a workspace filter the all-workspaces rows answer; with one, or grouped by workspace, that workspace's rows.
      await db('analytics_rollups').where('organisation_id', org).whereNot('workspace_id', ALL_WORKSPACES).del();
      assert.equal((await analytics.summary(whole)).requests, 48, 'all workspaces: the all-workspaces rows');
      assert.equal((await analytics.summary({ ...whole, workspace_id: 'w' })).requests, 0, 'one workspace: its own rows');
      assert.deepEqual(await analytics.groups(whole, 'workspace'), [], 'by workspace: the per-workspace rows');
      // Put the rollups back in step with the rows for the tests that check the whole table.
      await db('analytics_rollups').where('organisation_id', org).del();
    });

    test('a retention delete takes its rows out of the rollups in the same transaction', async () => {
      const org = randomUUID();
      const now = Date.parse('2026-10-01T12:34:56.789Z');
      const r = seededRandom(11);
      const logs = randomLogs(r, 400, { organisation_id: org, workspaces: ['w1', 'w2'], keys: ['k1'] }, now - 40 * DAY, 40 * DAY);
      await new RequestLogsRepository(db).insertMany(logs);
      const deleted = await new LogRetentionJob(app.services.store, { retentionDays: 30, batchSize: 37 }, () => now, silent).runOnce();
      const cutoff = now - 30 * DAY;
      const kept = logs.filter((e) => e.created_at >= cutoff);
      assert.ok(deleted >= logs.length - kept.length && kept.length > 0 && kept.length < logs.length);
      await assertRollupsMatchRows(db, 'after retention');
      assertTotals(await analytics.summary({ organisation_id: org, start: now - 50 * DAY, end: now }), referenceTotals(kept), 'summary after retention');
      const stale = await db('analytics_rollups').where('organisation_id', org).whereRaw(`bucket_start + case grain when 'minute' then ${MIN} when 'quarter' then ${15 * MIN} when 'hour' then ${HOUR} when 'day' then ${DAY} else ${7 * DAY} end <= ?`, [cutoff]).count({ n: '*' });
      assert.equal(Number(stale[0]!.n), 0, 'no rollup row is left for buckets wholly deleted');
    });

    test('the backfill counts rows written before the rollups, stops when told, and resumes without counting twice', async () => {
      const before = await analytics.summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN });
      // What a database upgraded from before the rollups looks like.
      await db.transaction((trx) => resetRollups(trx));
      assert.ok((await rowsToBackfill(db)) >= entries.length);
      assertTotals(await analytics.summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN }), before, 'exact from the raw rows meanwhile');

      const stop = new AbortController();
      const seen: number[] = [];
      const first = await backfillRollups(db, {
        batchSize: 97,
        signal: stop.signal,
        onProgress: (progress) => {
          seen.push(progress.done);
          if (seen.length === 4) stop.abort();
        },
      });
      assert.equal(first.done, 4 * 97);
      assert.deepEqual(seen, [97, 194, 291, 388], 'progress after every batch');
      await assertRollupsMatchRows(db, 'interrupted backfill');
      assertTotals(await analytics.summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN }), before, 'exact half way (rollups + rows not yet counted)');

      // A run killed after its first batch: what it committed stays counted, the rest waits for the next run.
      await assert.rejects(
        backfillRollups(db, { batchSize: 50, onProgress: () => { throw new Error('killed'); } }),
        /killed/,
      );
      const rest = await backfillRollups(db, { batchSize: 500 });
      assert.equal(rest.total, rest.done);
      assert.equal(await rowsToBackfill(db), 0);
      await assertRollupsMatchRows(db, 'resumed backfill');
      assertTotals(await analytics.summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN }), before, 'after the backfill');
    });
  });

  describe(`the rollup folder beside imports (${engine.name})`, () => {
    test('gives way to imports in flight without stopping: an import that never pauses is still folded, exactly', async () => {
      const shared = await sharedDb(engine.databaseUrl);
      const db = createDb(shared.options);
      const job = new RollupBackfillJob(db, silent);
      try {
        await migrateToLatest(db);
        const org = randomUUID();
        const scope = { organisation_id: org, workspaces: ['w1', 'w2'], keys: ['k1'] };
        // Over 30 days, two importers' calls, more rows than one folder batch.
        const imports = Array.from({ length: 2 }, (_, n) => randomLogs(seededRandom(40 + n), 700, scope, T0 - 30 * DAY, 30 * DAY));
        await Promise.all(imports.map((rows) => new RequestLogsRepository(db).insertMany(rows, 'custom', { rollUp: false })));
        // SQLite rolls imports up as it stores them: there the rows are made to wait for the folder.
        if (shared.options.sqliteFile) await db.transaction((trx) => resetRollups(trx));
        assert.ok((await rowsToBackfill(db)) >= 1400);
        const importing = job.importing();
        job.wake();
        await job.idle();
        importing();
        assert.equal(await rowsToBackfill(db), 0, 'folded while an import was in flight');
        await assertRollupsMatchRows(db, 'folded beside an import');
        assertTotals(await new LogAnalytics(db).summary({ organisation_id: org, start: T0 - 30 * DAY, end: T0 }), referenceTotals(imports.flat()), 'analytics equal the recount');
      } finally {
        await job.stop();
        await db.destroy();
        await shared.drop();
      }
    });

    test('waits three times its last batch while imports arrive or just ended, not at all once they are quiet', () => {
      assert.equal(giveWayMs(40, 1, Number.POSITIVE_INFINITY), 120);
      assert.equal(giveWayMs(40, 0, 100), 120, 'an importer between two calls');
      assert.equal(giveWayMs(40, 0, 1000), 0);
      assert.equal(giveWayMs(40, 0, Number.POSITIVE_INFINITY), 0, 'no import yet');
    });
  });

  describe(`analytics rollups recounted by an upgrade (${engine.name})`, () => {
    test('migration 301 recounts the rollups for finer buckets (quarter hours in every set, minutes in the small ones), and an instance starting on that database counts them in the background', async () => {
      const shared = await sharedDb(engine.databaseUrl);
      const ids = { organisation_id: randomUUID(), workspaces: [randomUUID()], keys: [randomUUID(), randomUUID()] };
      const entries = randomLogs(seededRandom(301), 400, ids);
      const older = createDb(shared.options);
      try {
        await migrateToLatest(older);
        await new RequestLogsRepository(older).insertMany(entries);
        const before = await new LogAnalytics(older).summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN });
        await older.transaction((trx) => finerRollupBuckets.up(trx));
        assert.equal(await rowsToBackfill(older), entries.length, 'every row is to be counted again');
        assert.equal(Number((await older('analytics_rollups').count({ n: '*' }))[0]!.n), 0);
        assertTotals(await new LogAnalytics(older).summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN }), before, 'exact from the raw rows meanwhile');
      } finally {
        await older.destroy();
      }

      // An instance starting on the upgraded database counts them without being asked.
      const app = await startTestApp({ engine, sharedDb: shared });
      try {
        await app.services.rollupBackfill.idle();
        const db = app.services.db;
        assert.equal(await rowsToBackfill(db), 0);
        await assertRollupsMatchRows(db, 'after the startup backfill');
        const setsAt = async (grain: string) =>
          (await db('analytics_rollups').where({ organisation_id: ids.organisation_id, grain }).distinct('dimension_set')).map((r: { dimension_set: string }) => r.dimension_set).sort();
        const hourSets = await setsAt('hour');
        assert.ok(hourSets.includes('core') && hourSets.includes('user'));
        assert.deepEqual(await setsAt('quarter'), hourSets, 'every set these rows fill keeps quarter hours');
        // Minutes for the totals and the dimensions with few values only.
        assert.deepEqual(await setsAt('minute'), ['cache_status', 'endpoint', 'environment', 'model', 'status', 'workspace']);
        assertTotals(await new LogAnalytics(db).summary({ organisation_id: ids.organisation_id, start: T0, end: T0 + SPAN }), referenceTotals(entries), 'after the startup backfill');
      } finally {
        await app.close();
        await shared.drop();
      }
    });
  });

  describe(`analytics rollups with two instances writing at once (${engine.name})`, () => {
    test('concurrent batches into the same buckets, and a batch written twice, count exactly once', async () => {
      const shared = await sharedDb(engine.databaseUrl);
      const first = createDb(shared.options);
      const second = createDb(shared.options);
      const threads: SqliteWriterThread[] = [];
      try {
        await migrateToLatest(first);
        const file = shared.options.sqliteFile;
        // On SQLite each instance writes through its own writer thread; on Postgres through its own pool.
        const writerFor = (db: Knex) => {
          if (!file) return new RequestLogsRepository(db);
          const thread = new SqliteWriterThread(file);
          threads.push(thread);
          return new ThreadedRequestLogWriter(thread, { outbox: false });
        };
        const writers = [writerFor(first), writerFor(second), new RequestLogsRepository(second)];
        const r = seededRandom(3);
        const org = randomUUID();
        // A few minutes and keys, so the instances keep landing on the same rollup rows.
        const batches = Array.from({ length: 24 }, () => randomLogs(r, 40, { organisation_id: org, workspaces: ['w'], keys: ['k'] }, T0, 3 * MIN));
        await Promise.all(writers.map((writer, w) => (async () => {
          for (let i = w; i < batches.length; i += writers.length) await writer.insertMany(batches[i]!);
        })()));
        // The same batch again (its acknowledgement was lost, say), from the other instance.
        await writers[1]!.insertMany(batches[0]!);
        const all = batches.flat();
        await assertRollupsMatchRows(first, 'two instances');
        assertTotals(await new LogAnalytics(second).summary({ organisation_id: org, start: T0, end: T0 + 3 * MIN }), referenceTotals(all), 'summary');
        assert.equal(await new LogAnalytics(first).count({ organisation_id: org }), all.length);
      } finally {
        for (const thread of threads) await thread.close();
        await first.destroy();
        await second.destroy();
        await shared.drop();
      }
    });
  });

  describe(`analytics rollups with several writers, importers and folders at once (${engine.name})`, () => {
    test('gateway batches, imports stored not rolled up and folder passes, all at once, add up to a recount of the raw rows', async () => {
      const shared = await sharedDb(engine.databaseUrl);
      // On SQLite one instance (its writer thread and its connection: one writer at a time), as gw runs on it; on Postgres four.
      const instances = Array.from({ length: shared.options.sqliteFile ? 1 : 4 }, () => createDb(shared.options));
      const instance = (n: number) => instances[n % instances.length]!;
      const threads: SqliteWriterThread[] = [];
      let writing = true;
      let folders: Array<Promise<void>> = [];
      try {
        await migrateToLatest(instances[0]!);
        const file = shared.options.sqliteFile;
        const gatewayWriter = (db: Knex) => {
          if (!file) return new RequestLogsRepository(db);
          const thread = new SqliteWriterThread(file);
          threads.push(thread);
          return new ThreadedRequestLogWriter(thread, { outbox: false });
        };
        const r = seededRandom(36);
        const org = randomUUID();
        const scope = { organisation_id: org, workspaces: ['w1', 'w2'], keys: ['k1', 'k2'] };
        // Live traffic: a few minutes, so every writer and folder lands on the same rollup rows.
        const live = Array.from({ length: 16 }, () => randomLogs(r, 1 + Math.floor(r() * 60), scope, T0 + SPAN - 5 * MIN, 5 * MIN));
        // Imports: spread over the whole span, overlapping the live minutes too.
        const imports = Array.from({ length: 16 }, () => randomLogs(r, 1 + Math.floor(r() * 60), scope));
        const folded: number[] = [];
        const folder = (db: Knex) => (async () => {
          let done = 0;
          while (writing) {
            done += (await backfillRollups(db, { batchSize: 37 })).done;
            // better-sqlite3 answers synchronously: let the writer threads' answers in between passes.
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          folded.push(done);
        })();
        folders = [folder(instance(2)), folder(instance(3))];
        await Promise.all([
          ...[0, 1].map((w) => (async () => {
            const writer = gatewayWriter(instance(w));
            for (let i = w; i < live.length; i += 2) await writer.insertMany(live[i]!);
          })()),
          ...[2, 3].map((w) => (async () => {
            const importer = new RequestLogsRepository(instance(w));
            for (let i = w - 2; i < imports.length; i += 2) await importer.insertMany(imports[i]!, 'custom', { rollUp: false });
          })()),
        ]);
        // An import written again (a retried call): its rows are stored and counted once.
        await new RequestLogsRepository(instance(1)).insertMany(imports[0]!, 'custom', { rollUp: false });
        const all = [...live, ...imports].flat();
        const range = { organisation_id: org, start: T0, end: T0 + SPAN };
        assertTotals(await new LogAnalytics(instance(1)).summary(range), referenceTotals(all), 'while imports are being folded');
        writing = false;
        await Promise.all(folders);
        await backfillRollups(instances[0]!);
        assert.equal(await rowsToBackfill(instances[0]!), 0);
        // SQLite rolls imports up as it stores them (LogWriteOptions.rollUp).
        if (!file) assert.ok(folded.reduce((a, b) => a + b, 0) > 0, 'the folders counted rows while the writers wrote');
        await assertRollupsMatchRows(instances[0]!, 'several writers and folders');
        assertTotals(await new LogAnalytics(instance(3)).summary(range), referenceTotals(all), 'once folded');
        assert.equal(await new LogAnalytics(instance(2)).count({ organisation_id: org }), all.length);
      } finally {
        // A failed assertion leaves the folders running: stop them before their connections close, so
        // the failure is reported as itself, not as a folder's "Unable to acquire a connection".
        writing = false;
        await Promise.allSettled(folders);
        for (const thread of threads) await thread.close();
        for (const db of instances) await db.destroy();
        await shared.drop();
      }
    });
  });
}
