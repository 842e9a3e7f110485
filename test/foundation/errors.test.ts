import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { logEntry } from '../logs/log-fixtures.js';

function assertErrorBody(body: unknown, code: string, type: string): void {
  const error = (body as { error: Record<string, unknown> }).error;
  assert.equal(error.code, code);
  assert.equal(error.type, type);
  assert.equal(typeof error.message, 'string');
  // The error object's fields are strings: param is there only when a field is at fault.
  assert.ok(!('param' in error) || typeof error.param === 'string');
}

for (const engine of fullEngines()) {
  describe(`error paths (${engine.name})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ engine });
    });
    after(() => app.close());

    test('an unknown route answers 404 in the error body', async () => {
      const res = await app.http.get('/v1/no-such-thing').set('x-gw-api-key', app.adminKey);
      assert.equal(res.status, 404);
      assertErrorBody(res.body, 'route_not_found', 'not_found_error');
    });

    test('an error no field is at fault for has no param; the OpenAI SDK reads it', async () => {
      const res = await app.http.get('/v1/no-such-thing').set('x-gw-api-key', app.adminKey);
      assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message', 'type']);
      for (const value of Object.values(res.body.error)) assert.equal(typeof value, 'string');

      const client = new OpenAI({ apiKey: 'gw-not-a-key', baseURL: `${app.url}/v1`, maxRetries: 0 });
      const error = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
      assert.equal(error.code, 'invalid_api_key');
      assert.equal(error.type, 'authentication_error');
      assert.equal(error.param, undefined);
    });

    test('a wrong method answers 405 in the error body', async () => {
      const res = await app.http.delete('/health');
      assert.equal(res.status, 405);
      assertErrorBody(res.body, 'method_not_allowed', 'invalid_request_error');
    });

    test('an invalid body answers 400 naming the failing field', async () => {
      const res = await app.http
        .post('/v1/api-keys/organisation/service')
        .set('x-gw-api-key', app.adminKey)
        .send({ name: 'k', scopes: [] });
      assert.equal(res.status, 400);
      assertErrorBody(res.body, 'invalid_request', 'invalid_request_error');
      assert.equal(res.body.error.param, 'scopes');
    });

    test('a missing required field is named in param', async () => {
      const res = await app.http.post('/v1/api-keys/organisation/service').set('x-gw-api-key', app.adminKey).send({ scopes: ['logs.view'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.param, 'name');
      assert.match(res.body.error.message, /name is required/);
    });

    test('an unknown field on an admin body is refused', async () => {
      const res = await app.http
        .post('/v1/api-keys/organisation/service')
        .set('x-gw-api-key', app.adminKey)
        .send({ name: 'k', scopes: ['logs.view'], scopez: ['x'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.param, 'scopez');
    });

    test('malformed percent-encoding in a path or a query answers 400 invalid_url_encoding, hot paths included', async () => {
      const requests: Array<[string, () => ReturnType<TestApp['http']['get']>]> = [
        ['GET /v1/api-keys/%ff%fe', () => app.http.get('/v1/api-keys/%ff%fe')],
        ['GET /v1/configs/%e0%a4%a', () => app.http.get('/v1/configs/%e0%a4%a')],
        ['GET /v1/logs?limit=%zz', () => app.http.get('/v1/logs?limit=%zz')],
        ['DELETE /v1/providers/%', () => app.http.delete('/v1/providers/%')],
        ['POST /v1/prompts/%ff/completions', () => app.http.post('/v1/prompts/%ff/completions').send({ variables: {} })],
        ['POST /v1/chat/completions?x=%ff', () => app.http.post('/v1/chat/completions?x=%ff').send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })],
        ['POST /%ff/mcp', () => app.http.post('/%ff/mcp').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
      ];
      for (const [name, request] of requests) {
        const res = await request().set('x-gw-api-key', app.adminKey);
        assert.equal(res.status, 400, name);
        assertErrorBody(res.body, 'invalid_url_encoding', 'invalid_request_error');
      }
    });

    test('malformed JSON answers 400 invalid_json', async () => {
      const res = await app.http
        .post('/v1/api-keys/organisation/service')
        .set('x-gw-api-key', app.adminKey)
        .set('content-type', 'application/json')
        .send('{"name":');
      assert.equal(res.status, 400);
      assertErrorBody(res.body, 'invalid_json', 'invalid_request_error');
    });

    test('a body that is not JSON answers 415', async () => {
      const res = await app.http
        .post('/v1/api-keys/organisation/service')
        .set('x-gw-api-key', app.adminKey)
        .set('content-type', 'text/plain')
        .send('name=k');
      assert.equal(res.status, 415);
      assertErrorBody(res.body, 'unsupported_media_type', 'invalid_request_error');
    });

    test('a missing key answers 401 missing_api_key', async () => {
      const res = await app.http.get('/v1/api-keys');
      assert.equal(res.status, 401);
      assertErrorBody(res.body, 'missing_api_key', 'authentication_error');
    });

    test('an unknown key answers 401 invalid_api_key', async () => {
      const res = await app.http.get('/v1/api-keys').set('x-gw-api-key', 'gw-not-a-real-key-000000000000');
      assert.equal(res.status, 401);
      assertErrorBody(res.body, 'invalid_api_key', 'authentication_error');
    });

    test('a key is also accepted as a bearer token on control-plane calls', async () => {
      const res = await app.http.get('/v1/api-keys').set('authorization', `Bearer ${app.adminKey}`);
      assert.equal(res.status, 200);
    });

    test('a key without the operation scope answers 403 missing_scope', async () => {
      const created = await app.http
        .post('/v1/api-keys/organisation/service')
        .set('x-gw-api-key', app.adminKey)
        .send({ name: 'reader', scopes: ['logs.view'] });
      assert.equal(created.status, 201);
      const res = await app.http.get('/v1/api-keys').set('x-gw-api-key', created.body.key);
      assert.equal(res.status, 403);
      assertErrorBody(res.body, 'missing_scope', 'permission_error');
      assert.match(res.body.error.message, /api_keys\.list/);
    });

    test('x-gw-trace-id is generated when absent and echoed when given, on success and on error', async () => {
      const generated = await app.http.get('/health');
      assert.match(String(generated.headers['x-gw-trace-id']), /^[0-9a-f-]{36}$/);
      const echoed = await app.http.get('/health').set('x-gw-trace-id', 'trace-abc');
      assert.equal(echoed.headers['x-gw-trace-id'], 'trace-abc');
      const failed = await app.http.get('/v1/nothing').set('x-gw-trace-id', 'trace-err');
      assert.equal(failed.status, 404);
      assert.equal(failed.headers['x-gw-trace-id'], 'trace-err');
    });

    test('/health and /ready answer without a key; /ready checks the store', async () => {
      const health = await app.http.get('/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
      const ready = await app.http.get('/ready');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.checks.store, true);
      if (engine.redisUrl) assert.equal(ready.body.checks.redis, true);
    });
  });
}

describe('readiness when the store is down', () => {
  test('/ready answers 503 not_ready', async () => {
    const app = await startTestApp();
    try {
      const original = app.services.store.ping.bind(app.services.store);
      app.services.store.ping = async () => {
        throw new Error('store unreachable');
      };
      const res = await app.http.get('/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'not_ready');
      assert.equal(res.body.checks.store, false);
      app.services.store.ping = original;
    } finally {
      await app.close();
    }
  });
});

describe('readiness when the request log is behind', () => {
  test('/ready answers 503 with checks.request_log false while the oldest entry not written is older than GW_LOG_BEHIND_SECONDS', async () => {
    const app = await startTestApp();
    try {
      const ready = await app.http.get('/ready');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.checks.request_log, true);
      // The store stops taking log rows while an entry from a minute ago waits (the limit is 30 s).
      const store = app.services.store.requestLogs;
      const original = store.insertMany.bind(store);
      store.insertMany = async () => {
        throw new Error('store unreachable');
      };
      app.services.requestLogs.record(logEntry({ organisation_id: 'org', workspace_id: 'ws', created_at: Date.now() - 60_000 }));
      const behind = await app.http.get('/ready');
      assert.equal(behind.status, 503);
      assert.equal(behind.body.status, 'not_ready');
      assert.equal(behind.body.checks.request_log, false);
      assert.equal(behind.body.checks.store, true);
      store.insertMany = original;
    } finally {
      await app.close();
    }
  });
});
