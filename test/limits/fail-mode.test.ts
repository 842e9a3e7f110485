/**
 * GW_LIMITS_FAIL_OPEN end to end: an instance whose Redis connection is gone lets limited
 * requests through when it is true and refuses them with 503 when false, without crashing.
 * Needs GW_TEST_REDIS_URL (the engine-level test in counter-store.test.ts runs everywhere).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const redisUrl = process.env.GW_TEST_REDIS_URL;
if (!redisUrl) test.skip('losing Redis mid-flight needs GW_TEST_REDIS_URL', () => undefined);

for (const failOpen of redisUrl ? [true, false] : []) {
  describe(`Redis lost with GW_LIMITS_FAIL_OPEN=${failOpen}`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;

    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine: { name: 'redis', redisUrl }, env: { GW_LIMITS_FAIL_OPEN: String(failOpen) }, upstreamOriginOverrides: { openai: fake.origin } });
      const created = await app.http.post('/v2/policies/rate-limits').set({ 'x-gw-api-key': app.adminKey }).send({ name: 'rpm', type: 'requests', unit: 'minute', value: 100 });
      assert.equal(created.status, 201);
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });

    test(failOpen ? 'requests pass unchecked' : 'requests are refused with 503 limits_unavailable', async () => {
      const chat = () =>
        app.http
          .post('/v1/chat/completions')
          .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', authorization: 'Bearer sk-up' })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal((await chat()).status, 200, 'with Redis up the limit is checked and passes');
      app.services.redis!.destroy();
      const response = await chat();
      if (failOpen) {
        assert.equal(response.status, 200);
      } else {
        assert.equal(response.status, 503);
        assert.deepEqual(response.body.error, { code: 'limits_unavailable', message: response.body.error.message, type: 'api_error' });
      }
      assert.equal((await app.http.get('/health')).status, 200, 'the instance still serves');
    });
  });
}
