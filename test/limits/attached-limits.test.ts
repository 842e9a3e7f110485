/** Limits set on API keys, workspaces and providers: stored on the record, enforced by the same engine as policies. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clockFromMinuteStart } from '../helpers/minute-clock.js';

for (const engine of fullEngines()) {
  describe(`limits on keys, workspaces and providers (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, upstreamOriginOverrides: { openai: fake.origin }, now: clockFromMinuteStart() });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });

    function chat(key: string, provider = 'openai') {
      return app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': key, 'x-gw-provider': provider, authorization: 'Bearer sk-up' })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    }

    async function workspaceKey(workspaceId: string, extra: Record<string, unknown> = {}) {
      const res = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'k', workspace_id: workspaceId, scopes: ['completions.write'], ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string; key: string; rate_limits: unknown; usage_limits: unknown };
    }

    test('an API key rate limit applies to that key only, and shows on the key', async () => {
      const limited = await workspaceKey(app.boot.workspaceId, { rate_limits: [{ type: 'requests', unit: 'minute', value: 2 }] });
      assert.deepEqual(limited.rate_limits, [{ type: 'requests', unit: 'minute', value: 2 }]);
      assert.equal(limited.usage_limits, null);
      const other = await workspaceKey(app.boot.workspaceId);
      assert.equal((await chat(limited.key)).status, 200);
      assert.equal((await chat(limited.key)).status, 200);
      const refused = await chat(limited.key);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['x-ratelimit-limit'], '2');
      assert.equal((await chat(other.key)).status, 200);
      const got = await app.http.get(`/v1/api-keys/${limited.id}`).set(admin());
      assert.deepEqual(got.body.rate_limits, [{ type: 'requests', unit: 'minute', value: 2 }]);
    });

    test('a budget set on a key by update is in force on the next request, and removing it lifts it', async () => {
      const key = await workspaceKey(app.boot.workspaceId);
      assert.equal((await chat(key.key)).status, 200);
      const updated = await app.http.put(`/v1/api-keys/${key.id}`).set(admin()).send({ usage_limits: { type: 'requests', credit_limit: 1, periodic_reset: 'monthly' } });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.deepEqual(updated.body.usage_limits, { type: 'requests', credit_limit: 1, periodic_reset: 'monthly' });
      assert.equal((await chat(key.key)).status, 200);
      const refused = await chat(key.key);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'usage_limit_exceeded');
      await app.http.put(`/v1/api-keys/${key.id}`).set(admin()).send({ usage_limits: null });
      assert.equal((await chat(key.key)).status, 200);
    });

    test('a workspace budget covers every key of the workspace', async () => {
      const created = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'capped', usage_limits: { type: 'requests', credit_limit: 2 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.usage_limits, { type: 'requests', credit_limit: 2 });
      const first = await workspaceKey(created.body.id);
      const second = await workspaceKey(created.body.id);
      assert.equal((await chat(first.key)).status, 200);
      assert.equal((await chat(second.key)).status, 200);
      assert.equal((await chat(first.key)).status, 429);
      const raised = await app.http.put(`/v1/workspaces/${created.body.id}`).set(admin()).send({ usage_limits: { type: 'requests', credit_limit: 3 } });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));
      assert.equal((await chat(second.key)).status, 200, 'the raised limit is in force at once');
      assert.equal((await chat(second.key)).status, 429);
    });

    test('a provider rate limit applies to calls through that saved provider only', async () => {
      const created = await app.http
        .post('/v1/providers')
        .set(admin())
        .send({ name: 'limited', ai_provider_id: 'openai', key: 'sk-saved-00000000', rate_limits: [{ type: 'requests', unit: 'day', value: 1 }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.rate_limits, [{ type: 'requests', unit: 'day', value: 1 }]);
      assert.equal((await chat(app.adminKey, '@limited')).status, 200);
      assert.equal((await chat(app.adminKey, '@limited')).status, 429);
      assert.equal((await chat(app.adminKey, 'openai')).status, 200, 'inline calls are not limited by the saved provider');
    });

    test('bad limits are refused naming the field', async () => {
      const both = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'k', workspace_id: app.boot.workspaceId, scopes: ['completions.write'], usage_limits: { type: 'cost', credit_limit: 5, periodic_reset: 'weekly', periodic_reset_days: 3 } });
      assert.equal(both.status, 400);
      assert.equal(both.body.error.param, 'usage_limits.periodic_reset_days');
      const badUnit = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'w', rate_limits: [{ type: 'requests', unit: 'week', value: 1 }] });
      assert.equal(badUnit.status, 400);
      assert.equal(badUnit.body.error.param, 'rate_limits[0].unit');
    });
  });
}
