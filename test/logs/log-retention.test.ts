import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { LogRetentionJob } from '../../gateway/logs/log-retention.js';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { logEntry, seedLogs } from './log-fixtures.js';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });

for (const engine of storeEngines()) {
  describe(`log retention (${engine.name})`, () => {
    let app: TestApp;
    let clock = Date.parse('2026-11-23T00:00:00.000Z');

    before(async () => {
      app = await startTestApp({ engine, now: () => clock, env: { GW_LOG_RETENTION_DAYS: '30' } });
    });
    after(() => app.close());

    test('deletes logs and feedback older than the window in small batches, keeps the rest', async () => {
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      const old = Array.from({ length: 35 }, (_, i) => logEntry({ ...ids, created_at: clock - 31 * DAY - i * 1000 }));
      const recent = Array.from({ length: 5 }, (_, i) => logEntry({ ...ids, created_at: clock - 29 * DAY + i * 1000 }));
      await seedLogs(app, [...old, ...recent]);
      const { logFeedback } = app.services.store;
      await logFeedback.create({ ...ids, api_key_id: null, trace_id: 'old', value: 1, weight: 1, metadata: {} }, clock - 40 * DAY);
      await logFeedback.create({ ...ids, api_key_id: null, trace_id: 'new', value: 1, weight: 1, metadata: {} }, clock - DAY);

      const store = app.services.store;
      const batches: number[] = [];
      const original = store.requestLogs.deleteOlderThan.bind(store.requestLogs);
      store.requestLogs.deleteOlderThan = async (before: number, batch: number) => {
        const n = await original(before, batch);
        batches.push(n);
        return n;
      };
      try {
        const job = new LogRetentionJob(store, { retentionDays: 30, batchSize: 10 }, () => clock, silent);
        assert.equal(await job.runOnce(), 35);
      } finally {
        store.requestLogs.deleteOlderThan = original;
      }
      assert.deepEqual(batches, [10, 10, 10, 5], 'one short statement per batch, never one big delete');
      const left = await app.services.db('request_logs').select('id');
      assert.deepEqual(new Set(left.map((r: { id: string }) => r.id)), new Set(recent.map((e) => e.id)));
      const feedback = await app.services.db('log_feedback').select('trace_id');
      assert.deepEqual(feedback.map((r: { trace_id: string }) => r.trace_id), ['new']);

      // Time passes: the service's own job (GW_LOG_RETENTION_DAYS=30, the injected clock) takes the rest.
      clock += 31 * DAY;
      assert.equal(await app.services.logRetention.runOnce(), 5);
      assert.equal((await app.services.db('request_logs').count({ n: '*' }))[0]!.n, 0);
    });

    test('stored responses expire after their own window (GW_RESPONSES_RETENTION_DAYS, default 30), with logs kept forever or not', async () => {
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      const stored = (id: string, ageDays: number) => app.services.store.responses.insert({ ...ids, id, created_at: clock - ageDays * DAY, body: {} as never, input_items: [], history: [] });
      for (let i = 0; i < 12; i++) await stored(`resp_old_${i}`, 31 + i);
      await stored('resp_recent', 29);
      const job = new LogRetentionJob(app.services.store, { retentionDays: 0, responsesRetentionDays: 30, batchSize: 5 }, () => clock, silent);
      await job.runOnce();
      const left = (await app.services.db('responses').select('id')).map((row: { id: string }) => row.id);
      assert.deepEqual(left, ['resp_recent']);
      assert.equal(app.services.config.responsesRetentionDays, 30, 'the default');
      await new LogRetentionJob(app.services.store, { retentionDays: 0 }, () => clock + 3650 * DAY, silent).runOnce();
      assert.deepEqual((await app.services.db('responses').select('id')).map((row: { id: string }) => row.id), ['resp_recent'], 'no window, no expiry');
    });

    test('retention 0 keeps logs forever', async () => {
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      await seedLogs(app, [logEntry({ ...ids, created_at: clock - 3650 * DAY })]);
      const job = new LogRetentionJob(app.services.store, { retentionDays: 0 }, () => clock, silent);
      assert.equal(await job.runOnce(), 0);
      assert.equal(Number((await app.services.db('request_logs').count({ n: '*' }))[0]!.n), 1);
    });
  });
}
