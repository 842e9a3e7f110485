import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LogAnalytics } from '../../store/log-analytics.js';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { logEntry, seedLogs, workspaceKey } from './log-fixtures.js';

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const K1 = '11111111-1111-4111-8111-111111111111';
const K2 = '22222222-2222-4222-8222-222222222222';

function near(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${what}: expected ${expected}, got ${actual}`);
}

/** Percentiles come from latency sketches: within 1% relative error of the exact value (the spec's promise). */
function within1pct(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) <= 0.01 * expected + 1e-9, `${what}: expected ${expected} within 1%, got ${actual}`);
}

for (const engine of storeEngines()) {
  describe(`analytics and feedback (${engine.name})`, () => {
    let app: TestApp;
    const clock = T0 + 30 * MIN;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const range = { start_time: new Date(T0).toISOString(), end_time: new Date(T0 + 3 * HOUR).toISOString() };

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      const openai = { provider: 'openai', model: 'model-a' };
      const anthropic = { provider: 'anthropic', model: 'model-b' };
      await seedLogs(app, [
        logEntry({ ...ids, ...openai, created_at: T0, status: 200, latency_ms: 100, cost: 0.01, api_key_id: K1, metadata: { _user: 'ana', env: 'prod' } }),
        logEntry({ ...ids, ...openai, created_at: T0 + MIN, status: 200, latency_ms: 200, cost: 0.02, api_key_id: K1, retry_count: 1, metadata: { _user: 'ana' } }),
        logEntry({ ...ids, ...anthropic, created_at: T0 + 2 * MIN, status: 500, latency_ms: 300, cost: 0, api_key_id: K2, metadata: { _user: 'bob', env: 'prod' } }),
        logEntry({ ...ids, ...openai, created_at: T0 + 3 * MIN, status: 200, latency_ms: 400, cost: 0.05, api_key_id: K1, cache_status: 'HIT' }),
        logEntry({ ...ids, ...anthropic, created_at: T0 + HOUR + MIN, status: 429, latency_ms: 1000, cost: 0, api_key_id: K2, metadata: { env: 'dev' } }),
        logEntry({
          ...ids,
          ...anthropic,
          created_at: T0 + HOUR + 2 * MIN,
          status: 200,
          latency_ms: 50,
          cost: 0.03,
          api_key_id: K2,
          route: [
            { path: '0', provider: 'openai', status: 503 },
            { path: '1', provider: 'anthropic', status: 200 },
          ],
        }),
        // Outside the range: must not count.
        logEntry({ ...ids, created_at: T0 + 5 * HOUR, status: 500, latency_ms: 9999 }),
      ]);
    });
    after(() => app.close());

    test('summary: counts, spend, cache savings, rescued requests and percentiles within 1%', async () => {
      const res = await app.http.get('/v1/analytics/summary').query(range).set(admin());
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const s = res.body;
      assert.equal(s.requests, 6);
      assert.equal(s.errors, 2);
      near(s.error_rate, 2 / 6, 'error_rate');
      near(s.cost, 0.06, 'cost (cache hits are savings, not spend)');
      near(s.cache_savings, 0.05, 'cache_savings');
      assert.equal(s.cache_hits, 1);
      near(s.cache_hit_rate, 1 / 6, 'cache_hit_rate');
      assert.equal(s.rescued_requests, 2);
      assert.equal(s.total_tokens, 90);
      near(s.latency_avg_ms, 2050 / 6, 'avg');
      within1pct(s.latency_p50_ms, 250, 'p50');
      within1pct(s.latency_p90_ms, 700, 'p90');
      within1pct(s.latency_p99_ms, 970, 'p99');
    });

    test('summary honours log filters', async () => {
      const res = await app.http.get('/v1/analytics/summary').query({ ...range, provider: 'anthropic', status: '4xx,5xx' }).set(admin());
      assert.equal(res.body.requests, 2);
      near(res.body.error_rate, 1, 'error_rate');
      within1pct(res.body.latency_p50_ms, 650, 'p50');
    });

    test('grouped by model, provider, user, metadata key, API key, workspace and status', async () => {
      const group = async (by: string, extra: Record<string, string> = {}) => {
        const res = await app.http.get(`/v1/analytics/groups/${by}`).query({ ...range, ...extra }).set(admin());
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return Object.fromEntries(res.body.data.map((g: { key: string | null; requests: number }) => [String(g.key), g]));
      };
      const models = await group('model');
      assert.equal(models['model-a'].requests, 3);
      near(models['model-a'].cost, 0.03, 'model-a cost');
      assert.equal(models['model-b'].errors, 2);
      within1pct(models['model-b'].latency_p50_ms, 300, 'model-b p50');
      assert.equal((await group('provider')).anthropic.requests, 3);
      const users = await group('user');
      assert.equal(users.ana.requests, 2);
      assert.equal(users.bob.requests, 1);
      assert.equal(users.null.requests, 3);
      const env = await group('metadata', { metadata_key: 'env' });
      assert.equal(env.prod.requests, 2);
      assert.equal(env.dev.requests, 1);
      assert.equal((await group('api_key'))[K2].requests, 3);
      assert.equal((await group('workspace'))[app.boot.workspaceId].requests, 6);
      const statuses = await group('status');
      assert.equal(statuses['200'].requests, 4);
      assert.equal(statuses['429'].requests, 1);
      const missingKey = await app.http.get('/v1/analytics/groups/metadata').query(range).set(admin());
      assert.equal(missingKey.status, 400);
      assert.equal((await app.http.get('/v1/analytics/groups/colour').query(range).set(admin())).status, 400);
    });

    test('feedback: workspace keys create and update it; admin keys cannot; it shows in analytics', async () => {
      const key = await workspaceKey(app, 'default', ['feedback.create', 'feedback.update']);
      const ws = { 'x-gw-api-key': key };
      const byAdmin = await app.http.post('/v1/feedback').set(admin()).send({ trace_id: 't', value: 1 });
      assert.equal(byAdmin.status, 403);
      const outOfRange = await app.http.post('/v1/feedback').set(ws).send({ trace_id: 't', value: 11 });
      assert.equal(outOfRange.status, 400);
      const first = await app.http.post('/v1/feedback').set(ws).send({ trace_id: 'trace-a', value: 4 });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.weight, 1);
      const second = await app.http.post('/v1/feedback').set(ws).send({ trace_id: 'trace-b', value: -2, weight: 0.5, metadata: { source: 'ui' } });
      assert.equal(second.status, 201);

      let summary = (await app.http.get('/v1/analytics/summary').query(range).set(admin())).body;
      assert.equal(summary.feedback_count, 2);
      near(summary.feedback_avg, (4 - 1) / 1.5, 'weighted feedback');

      const updated = await app.http.put(`/v1/feedback/${second.body.id}`).set(ws).send({ value: 10 });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.value, 10);
      assert.equal(updated.body.weight, 0.5);
      summary = (await app.http.get('/v1/analytics/summary').query(range).set(admin())).body;
      near(summary.feedback_avg, (4 + 5) / 1.5, 'weighted feedback after update');

      const missing = await app.http.put('/v1/feedback/00000000-0000-4000-8000-000000000000').set(ws).send({ value: 1 });
      assert.equal(missing.status, 404);
    });

    test('time series: hour buckets with per-bucket percentiles, error rate, rescues and feedback', async () => {
      const res = await app.http.get('/v1/analytics/time-series').query({ ...range, bucket: 'hour' }).set(admin());
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.bucket, 'hour');
      const [h0, h1] = res.body.data;
      assert.equal(res.body.data.length, 2);
      assert.equal(h0.timestamp, new Date(T0).toISOString());
      assert.equal(h0.requests, 4);
      near(h0.error_rate, 0.25, 'h0 error rate');
      within1pct(h0.latency_p50_ms, 250, 'h0 p50');
      within1pct(h0.latency_p90_ms, 370, 'h0 p90');
      within1pct(h0.latency_p99_ms, 397, 'h0 p99');
      near(h0.cache_savings, 0.05, 'h0 savings');
      assert.equal(h0.rescued_requests, 1);
      assert.equal(h0.feedback_count, 2, 'feedback given at T0+30min lands in the first hour');
      assert.equal(h1.timestamp, new Date(T0 + HOUR).toISOString());
      assert.equal(h1.requests, 2);
      near(h1.error_rate, 0.5, 'h1 error rate');
      within1pct(h1.latency_p50_ms, 525, 'h1 p50');
      assert.equal(h1.rescued_requests, 1);
      assert.equal(h1.feedback_count, 0);
    });

    test('the bucket follows the range when not given, and too many points are refused', async () => {
      const auto = await app.http.get('/v1/analytics/time-series').query(range).set(admin());
      assert.equal(auto.body.bucket, 'minute');
      assert.equal(auto.body.data.length, 7, 'six minutes with requests and one with feedback only');
      const week = await app.http.get('/v1/analytics/time-series').query({ start_time: new Date(T0).toISOString(), end_time: new Date(T0 + 30 * 24 * HOUR).toISOString() }).set(admin());
      assert.equal(week.body.bucket, 'day');
      assert.equal(week.body.data[0].requests, 7);
      const tooMany = await app.http
        .get('/v1/analytics/time-series')
        .query({ start_time: new Date(T0).toISOString(), end_time: new Date(T0 + 30 * 24 * HOUR).toISOString(), bucket: 'minute' })
        .set(admin());
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.error.param, 'bucket');
    });

    test('percentiles with repeated latencies, per group, within 1% of what percentile_cont computes', async () => {
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      const start = T0 + 10 * 24 * HOUR;
      // Few distinct values, many repeats, groups of different sizes: ranks fall inside and across bins.
      const latencies: Record<string, number[]> = {
        'dup-a': Array.from({ length: 301 }, (_, i) => [5, 5, 80, 80, 80, 1200, 7][i % 7]! + (i % 13 === 0 ? 1 : 0)),
        'dup-b': [40, 40, 40, 41],
        'dup-c': [9],
      };
      const entries = Object.entries(latencies).flatMap(([model, values]) =>
        values.map((latency_ms, i) => logEntry({ ...ids, model, latency_ms, created_at: start + i })),
      );
      await seedLogs(app, entries);
      /** The textbook definition: linear interpolation between closest ranks of the sorted values. */
      const reference = (values: number[], p: number) => {
        const sorted = [...values].sort((a, b) => a - b);
        const x = p * (sorted.length - 1);
        return sorted[Math.floor(x)]! + (sorted[Math.ceil(x)]! - sorted[Math.floor(x)]!) * (x - Math.floor(x));
      };
      const window = { organisation_id: app.boot.organisationId, start, end: start + HOUR };
      const groups = await new LogAnalytics(app.services.db).groups(window, 'model');
      assert.equal(groups.length, 3);
      for (const group of groups) {
        const values = latencies[group.key!]!;
        within1pct(group.latency_p50_ms, reference(values, 0.5), `${group.key} p50`);
        within1pct(group.latency_p90_ms, reference(values, 0.9), `${group.key} p90`);
        within1pct(group.latency_p99_ms, reference(values, 0.99), `${group.key} p99`);
      }
      if (engine.databaseUrl) {
        const rows = await app.services.db('request_logs')
          .select('model', app.services.db.raw('percentile_cont(0.9) within group (order by latency_ms) as p90'))
          .where('created_at', '>=', start)
          .where('created_at', '<', start + HOUR)
          .groupBy('model');
        for (const row of rows as Array<{ model: string; p90: number }>) within1pct(groups.find((g) => g.key === row.model)!.latency_p90_ms, Number(row.p90), `${row.model} p90 vs percentile_cont`);
      }
    });

    test('a workspace key sees its own workspace only', async () => {
      const key = await workspaceKey(app, 'default', ['analytics.view']);
      const own = await app.http.get('/v1/analytics/summary').query(range).set({ 'x-gw-api-key': key });
      assert.equal(own.body.requests, 6);
      const ws = await app.services.store.workspaces.create({ organisation_id: app.boot.organisationId, name: 'empty', slug: 'empty' }, new Date().toISOString());
      const emptyKey = await workspaceKey(app, ws.id, ['analytics.view']);
      const none = await app.http.get('/v1/analytics/summary').query(range).set({ 'x-gw-api-key': emptyKey });
      assert.equal(none.body.requests, 0);
      assert.equal(none.body.latency_p50_ms, null);
    });
  });
}
