/**
 * Reading a request's log right after the request (the README's first steps): the log API writes
 * this instance's queued logs before it reads, so the flush timer (a minute here) never decides
 * what is found; GET /v1/logs/{id} takes the request's trace id; wait_ms waits for a log written
 * meanwhile (by another instance).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { otherWorkspace, workspaceKey } from './log-fixtures.js';

for (const engine of storeEngines()) {
  describe(`reading a request's log at once (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const customLog = (traceId: string, createdAt: string, model: string) => ({ trace_id: traceId, model, created_at: createdAt, request: {}, response: {} });

    before(async () => {
      app = await startTestApp({ engine, env: { GW_LOG_FLUSH_INTERVAL_MS: '60000' } });
    });
    after(() => app.close());

    async function chat(traceId: string) {
      const res = await app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-provider': 'openai', 'x-gw-trace-id': traceId })
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], mock_response: 'Hello from gw' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-gw-trace-id'], traceId);
    }

    test('a request answered here is listed, and got by its trace id, with the flush timer a minute away', async () => {
      await chat('read-at-once-list');
      const listed = await app.http.get('/v1/logs').query({ trace_id: 'read-at-once-list' }).set(admin());
      assert.equal(listed.status, 200);
      assert.equal(listed.body.data.length, 1);

      await chat('read-at-once-get');
      const one = await app.http.get('/v1/logs/read-at-once-get').set(admin());
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.equal(one.body.trace_id, 'read-at-once-get');
      assert.equal(one.body.model, 'gpt-4o-mini');
      assert.equal((await app.http.get(`/v1/logs/${one.body.id}`).set(admin())).body.trace_id, 'read-at-once-get', 'the log id still works');
    });

    test('by trace id: the newest log of the trace, only in the caller workspace; no match is 404 at once', async () => {
      const created = await app.http
        .post('/v1/logs')
        .set(admin())
        .send({ logs: [customLog('shared-trace', '2026-11-20T00:00:00.000Z', 'older'), customLog('shared-trace', '2026-11-20T00:01:00.000Z', 'newer')] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const one = await app.http.get('/v1/logs/shared-trace').set(admin());
      assert.equal(one.status, 200);
      assert.equal(one.body.model, 'newer');

      const outsider = await workspaceKey(app, await otherWorkspace(app, 'elsewhere'), ['logs.view']);
      const hidden = await app.http.get('/v1/logs/shared-trace').set({ 'x-gw-api-key': outsider });
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.error.type, 'not_found_error');

      const missing = await app.http.get('/v1/logs/no-such-trace').set(admin());
      assert.equal(missing.status, 404);
    });

    test('wait_ms waits for a log written meanwhile, as by another instance', async () => {
      assert.equal((await app.http.get('/v1/logs/written-later').set(admin())).status, 404);
      const waiting = app.http.get('/v1/logs/written-later').query({ wait_ms: 10_000 }).set(admin()).then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const created = await app.http.post('/v1/logs').set(admin()).send({ logs: [customLog('written-later', new Date().toISOString(), 'late')] });
      assert.equal(created.status, 201);
      const found = await waiting;
      assert.equal(found.status, 200);
      assert.equal(found.body.model, 'late');
      const tooLong = await app.http.get('/v1/logs/written-later').query({ wait_ms: 10_001 }).set(admin());
      assert.equal(tooLong.status, 400);
    });
  });
}
