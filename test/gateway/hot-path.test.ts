/**
 * The gateway's hot operations skip openapi-backend's routing (server/hot-operations.ts) but must
 * answer exactly as the general route does. `/` sends the same call through
 * openapi-backend, so every outcome is compared between the two paths.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { workspaceKey } from '../logs/log-fixtures.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

describe('hot path and general route answer alike', () => {
  let gw: GatewayApp;
  let upstream: Record<string, string>;
  let readOnlyKey: string;
  before(async () => {
    gw = await startGatewayApp();
    upstream = { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-up' };
    readOnlyKey = await workspaceKey(gw.app, gw.app.boot.workspaceId, ['logs.list']);
  });
  after(() => gw.close());

  const cases: Array<{ name: string; headers: () => Record<string, string>; body: unknown; status: number }> = [
    { name: 'no gw key', headers: () => upstream, body, status: 401 },
    { name: 'an unknown gw key', headers: () => ({ ...upstream, 'x-gw-api-key': 'gw-unknown' }), body, status: 401 },
    { name: 'a key without completions.write', headers: () => ({ ...upstream, 'x-gw-api-key': readOnlyKey }), body, status: 403 },
    { name: 'a body the spec rejects', headers: () => ({ ...upstream, 'x-gw-api-key': gw.app.adminKey }), body: { model: 'gpt-4o', messages: [{ role: 'robot', content: 'hi' }] }, status: 400 },
    { name: 'no body', headers: () => ({ ...upstream, 'x-gw-api-key': gw.app.adminKey }), body: undefined, status: 400 },
    { name: 'a header the spec rejects', headers: () => ({ ...upstream, 'x-gw-api-key': gw.app.adminKey, 'x-gw-request-timeout': 'soon' }), body, status: 400 },
    { name: 'a served call', headers: () => ({ ...upstream, 'x-gw-api-key': gw.app.adminKey }), body, status: 200 },
  ];

  for (const { name, headers, body: sent, status } of cases) {
    it(name, async () => {
      const call = (path: string) => {
        const request = gw.app.http.post(path).set(headers());
        return sent === undefined ? request : request.send(sent as object);
      };
      const hot = await call('/v1/chat/completions');
      const general = await call('/v1/chat/completions/');
      assert.equal(hot.status, status, JSON.stringify(hot.body));
      assert.equal(general.status, status, JSON.stringify(general.body));
      if (status === 200) {
        assert.equal(hot.body.object, 'chat.completion');
        assert.deepEqual(hot.body.choices, general.body.choices);
      } else {
        assert.deepEqual(hot.body, general.body);
      }
      assert.ok(hot.headers['x-gw-trace-id'] && general.headers['x-gw-trace-id']);
    });
  }

  it('a refused call with a valid key is logged on both paths', async () => {
    const before = gw.logs.length;
    for (const path of ['/v1/chat/completions', '/v1/chat/completions/']) {
      await gw.app.http.post(path).set({ ...upstream, 'x-gw-api-key': readOnlyKey }).send(body);
    }
    const logged = (await logsSettled(gw, before + 2)).slice(before);
    assert.deepEqual(logged.map((entry) => entry.status), [403, 403]);
  });

  it('embeddings and completions answer alike on both paths, refusals included', async () => {
    const headers = { ...upstream, 'x-gw-api-key': gw.app.adminKey };
    const calls = [
      { path: '/v1/embeddings', sent: { model: 'text-embedding-3-small', input: 'hi' }, bad: { model: 'text-embedding-3-small' } },
      { path: '/v1/completions', sent: { model: 'gpt-3.5-turbo-instruct', prompt: 'hi' }, bad: { model: 'gpt-3.5-turbo-instruct', prompt: 'hi', n: 'two' } },
    ];
    for (const { path, sent, bad } of calls) {
      const hot = await gw.app.http.post(path).set(headers).send(sent);
      const general = await gw.app.http.post(`${path}/`).set(headers).send(sent);
      assert.equal(hot.status, 200, JSON.stringify(hot.body));
      assert.equal(general.status, 200, JSON.stringify(general.body));
      assert.deepEqual({ ...hot.body, id: undefined, created: undefined }, { ...general.body, id: undefined, created: undefined });
      const refused = await gw.app.http.post(path).set(headers).send(bad);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, (await gw.app.http.post(`${path}/`).set(headers).send(bad)).body);
    }
  });

  it('GET /v1/models answers alike on both paths', async () => {
    const headers = { 'x-gw-api-key': gw.app.adminKey };
    const hot = await gw.app.http.get('/v1/models').set(headers);
    const general = await gw.app.http.get('/v1/models/').set(headers);
    assert.equal(hot.status, 200);
    assert.deepEqual(hot.body, general.body);
    const refused = await gw.app.http.get('/v1/models');
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, (await gw.app.http.get('/v1/models/')).body);
  });
});
