import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestLogEntry } from '../../core/request-log.js';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { logEntry, otherWorkspace, seedLogs, workspaceKey } from './log-fixtures.js';
import { assertEndpointRolledUp } from './rollup-check.js';

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const MIN = 60_000;

for (const engine of storeEngines()) {
  describe(`logs API (${engine.name})`, () => {
    let app: TestApp;
    let otherWs: string;
    const keyA = '11111111-1111-4111-8111-111111111111';
    const keyB = '22222222-2222-4222-8222-222222222222';
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    let seeded: RequestLogEntry[];

    before(async () => {
      app = await startTestApp({ engine });
      otherWs = await otherWorkspace(app, 'team-b');
      const ws = app.boot.workspaceId;
      const org = app.boot.organisationId;
      seeded = [
        logEntry({ organisation_id: org, workspace_id: ws, created_at: T0, status: 200, model: 'gpt-4o', provider: 'openai', api_key_id: keyA, metadata: { env: 'prod', _user: 'ana' }, trace_id: 'trace-1' }),
        logEntry({ organisation_id: org, workspace_id: ws, created_at: T0 + MIN, status: 429, model: 'gpt-4o', provider: 'openai', api_key_id: keyA, metadata: { env: 'dev' } }),
        logEntry({ organisation_id: org, workspace_id: ws, created_at: T0 + 2 * MIN, status: 503, model: 'claude-3-5-sonnet', provider: 'anthropic', api_key_id: keyB, metadata: { env: 'prod' } }),
        logEntry({ organisation_id: org, workspace_id: ws, created_at: T0 + 3 * MIN, status: 201, model: 'claude-3-5-sonnet', provider: 'anthropic', api_key_id: keyB, metadata: { env: 'prod', team: 'x' }, trace_id: 'trace-1', cache_status: 'HIT' }),
        logEntry({ organisation_id: org, workspace_id: otherWs, created_at: T0 + 4 * MIN, status: 400, model: 'gpt-4o', provider: 'openai', api_key_id: keyA, metadata: { env: 'prod' } }),
      ];
      await seedLogs(app, seeded);
    });
    after(() => app.close());

    async function listTraces(query: Record<string, string>, headers = admin()): Promise<number[]> {
      const res = await app.http.get('/v1/logs').query(query).set(headers);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((log: { created_at: string }) => (Date.parse(log.created_at) - T0) / MIN);
    }

    test('lists newest first without bodies, and gets one log with bodies', async () => {
      const res = await app.http.get('/v1/logs').set(admin());
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((l: { id: string }) => l.id), [...seeded].reverse().map((e) => e.id));
      assert.equal(res.body.data[0].request_body, undefined);
      const one = await app.http.get(`/v1/logs/${seeded[0]!.id}`).set(admin());
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.request_body, seeded[0]!.request_body);
      assert.equal(one.body.created_at, new Date(T0).toISOString());
      assert.equal(one.body.endpoint, 'chat.completions');
      assert.equal((await app.http.get('/v1/logs/00000000-0000-4000-8000-000000000000').set(admin())).status, 404);
    });

    test('every filter narrows the list', async () => {
      assert.deepEqual(await listTraces({ start_time: new Date(T0 + MIN).toISOString(), end_time: new Date(T0 + 3 * MIN).toISOString() }), [2, 1]);
      assert.deepEqual(await listTraces({ status: '429' }), [1]);
      assert.deepEqual(await listTraces({ status: '5xx' }), [2]);
      assert.deepEqual(await listTraces({ status: '2xx,429' }), [3, 1, 0]);
      assert.deepEqual(await listTraces({ model: 'claude-3-5-sonnet' }), [3, 2]);
      assert.deepEqual(await listTraces({ provider: 'openai' }), [4, 1, 0]);
      assert.deepEqual(await listTraces({ metadata: 'env=prod' }), [4, 3, 2, 0]);
      assert.deepEqual(await listTraces({ metadata: 'env=prod,team=x' }), [3]);
      assert.deepEqual(await listTraces({ metadata: '_user=ana' }), [0]);
      assert.deepEqual(await listTraces({ trace_id: 'trace-1' }), [3, 0]);
      assert.deepEqual(await listTraces({ api_key_id: keyB }), [3, 2]);
      assert.deepEqual(await listTraces({ workspace_id: 'team-b' }), [4]);
      assert.deepEqual(await listTraces({ workspace_id: app.boot.workspaceId, provider: 'openai' }), [1, 0]);
      assert.deepEqual(await listTraces({ endpoint: 'chat.completions', provider: 'anthropic' }), [3, 2]);
      assert.deepEqual(await listTraces({ cache_status: 'HIT' }), [3]);
      assert.deepEqual(await listTraces({ cache_status: 'MISS', provider: 'anthropic' }), [2]);
    });

    test('bad filters answer 400 naming the parameter', async () => {
      const status = await app.http.get('/v1/logs').query({ status: 'abc' }).set(admin());
      assert.equal(status.status, 400);
      assert.equal(status.body.error.param, 'status');
      const metadata = await app.http.get('/v1/logs').query({ metadata: 'no-equals' }).set(admin());
      assert.equal(metadata.status, 400);
      assert.equal(metadata.body.error.param, 'metadata');
      const cache = await app.http.get('/v1/logs').query({ cache_status: 'SOMETIMES' }).set(admin());
      assert.equal(cache.status, 400);
      assert.equal(cache.body.error.param, 'cache_status');
      const endpoint = await app.http.get('/v1/logs').query({ endpoint: 'no.such.endpoint' }).set(admin());
      assert.equal(endpoint.status, 400);
      assert.equal(endpoint.body.error.param, 'endpoint');
    });

    test('cursor pagination walks every log once, newest first', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await app.http.get('/v1/logs').query({ limit: 2, ...(cursor ? { cursor } : {}) }).set(admin());
        assert.equal(res.status, 200);
        assert.ok(res.body.data.length <= 2);
        seen.push(...res.body.data.map((l: { id: string }) => l.id));
        cursor = res.body.next_cursor ?? undefined;
        assert.equal(res.body.has_more, Boolean(cursor));
      } while (cursor);
      assert.deepEqual(seen, [...seeded].reverse().map((e) => e.id));
    });

    test('a workspace key sees only its workspace logs', async () => {
      const key = await workspaceKey(app, 'team-b', ['logs.list', 'logs.view']);
      assert.deepEqual(await listTraces({}, { 'x-gw-api-key': key }), [4]);
      const foreign = await app.http.get(`/v1/logs/${seeded[0]!.id}`).set({ 'x-gw-api-key': key });
      assert.equal(foreign.status, 404);
      const own = await app.http.get(`/v1/logs/${seeded[4]!.id}`).set({ 'x-gw-api-key': key });
      assert.equal(own.status, 200);
      const other = await app.http.get('/v1/logs').query({ workspace_id: 'default' }).set({ 'x-gw-api-key': key });
      assert.equal(other.status, 403);
    });

    test('scopes: logs.list to list, logs.view to get', async () => {
      const key = await workspaceKey(app, 'team-b', ['logs.list']);
      assert.equal((await app.http.get('/v1/logs').set({ 'x-gw-api-key': key })).status, 200);
      assert.equal((await app.http.get(`/v1/logs/${seeded[4]!.id}`).set({ 'x-gw-api-key': key })).status, 403);
    });

    test('custom logs are inserted at once into the caller workspace and can be read back', async () => {
      const key = await workspaceKey(app, 'team-b', ['logs.write', 'logs.list', 'logs.view']);
      const created = await app.http
        .post('/v1/logs')
        .set({ 'x-gw-api-key': key })
        .send({
          logs: [
            {
              trace_id: 'custom-1',
              provider: 'self-hosted',
              model: 'llama',
              status: 200,
              latency_ms: 42,
              prompt_tokens: 3,
              completion_tokens: 4,
              metadata: { env: 'lab' },
              request: { messages: [{ role: 'user', content: 'q' }] },
              response: { choices: [] },
              created_at: new Date(T0 + 10 * MIN).toISOString(),
            },
          ],
        });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      // On Postgres the rollup folder counts imported rows just after the call (LogWriteOptions.rollUp).
      await app.services.rollupBackfill.idle();
      await assertEndpointRolledUp(app.services.db, 'chat.completions', 'custom logs');
      const id = created.body.data[0].id;
      const one = await app.http.get(`/v1/logs/${id}`).set({ 'x-gw-api-key': key });
      assert.equal(one.status, 200);
      assert.equal(one.body.source, 'custom');
      assert.equal(one.body.workspace_id, otherWs);
      assert.equal(one.body.total_tokens, 7);
      assert.deepEqual(one.body.response_body, { choices: [] });
      const typo = await app.http.post('/v1/logs').set({ 'x-gw-api-key': key }).send({ logs: [{ request: {}, response: {}, modle: 'x' }] });
      assert.equal(typo.status, 400);
    });
  });
}
