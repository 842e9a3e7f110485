/**
 * Saved configs route like inline ones: checked at save (spec schema plus the routing rules the
 * schema cannot say), then used by id or slug in `x-gw-config`. Runs on SQLite+memory and Postgres+Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { refusedUrl, startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const conditional = (then: string, operator = '$eq') => ({
  strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { [operator]: 'pro' } }, then }], default: 'a' },
  targets: [{ name: 'a', provider: 'openai', api_key: 'sk-a' }],
});

for (const engine of fullEngines()) {
  describe(`saved configs that route (${engine.name})`, () => {
    let app: TestApp;
    let good: FaultUpstream;
    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      good = await startFaultUpstream([{ kind: 'ok', content: 'from the saved fallback' }]);
    });
    after(async () => {
      await app?.close();
      await good?.close();
    });

    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    test('a conditional naming no target, or an unknown operator, is refused at save and at update, naming the key', async () => {
      const created = await app.http.post('/v1/configs').set(admin()).send({ name: 'bad-then', config: conditional('missing') });
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.equal(created.body.error.param, 'config.strategy.conditions[0].then');
      const operator = await app.http.post('/v1/configs').set(admin()).send({ name: 'bad-op', config: conditional('a', '$like') });
      assert.equal(operator.status, 400);
      assert.equal(operator.body.error.param, 'config.strategy.conditions[0].query.metadata.tier.$like');

      const saved = await app.http.post('/v1/configs').set(admin()).send({ name: 'good-conditional', config: conditional('a') });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const updated = await app.http.put(`/v1/configs/${saved.body.id}`).set(admin()).send({ config: { ...conditional('a'), strategy: { ...conditional('a').strategy, default: 'nobody' } } });
      assert.equal(updated.status, 400);
      assert.equal(updated.body.error.param, 'config.strategy.default');
      assert.equal((await app.http.get(`/v1/configs/${saved.body.id}`).set(admin())).body.version, 1, 'the refused update added no version');
    });

    test('a saved fallback config is used by id and by slug', async () => {
      const config = {
        strategy: { mode: 'fallback' },
        provider: 'openai',
        api_key: 'sk-saved-route',
        targets: [{ custom_host: await refusedUrl() }, { custom_host: good.url }],
      };
      const saved = await app.http.post('/v1/configs').set(admin()).send({ name: 'saved fallback', slug: 'saved-fallback', config });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      for (const reference of [saved.body.id as string, 'saved-fallback']) {
        const before = good.received.length;
        const response = await app.http
          .post('/v1/chat/completions')
          .set({ ...admin(), 'x-gw-config': reference })
          .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.choices[0].message.content, 'from the saved fallback');
        assert.equal(response.headers['x-gw-last-used-option-index'], '1');
        assert.equal(good.received.length, before + 1);
        assert.equal(good.received.at(-1)!.headers.authorization, 'Bearer sk-saved-route', 'the sealed key reaches the upstream in clear');
      }
    });
  });
}
