/**
 * A model the price catalog does not know is unpriced, not free: its log row says so, analytics
 * count such requests, metrics count them, and a cost budget reports them beside its usage
 * instead of counting them as 0 USD.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

for (const engine of fullEngines()) {
  describe(`unpriced models (${engine.name})`, () => {
    let gw: GatewayApp;
    let policyId: string;
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
    const chat = (model: string) =>
      gw.app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk', 'x-gw-metadata': JSON.stringify({ test: 'unpriced' }) })
        .send({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 });

    before(async () => {
      gw = await startGatewayApp({ engine });
      const policy = await gw.app.http
        .post('/v2/policies/usage-limits')
        .set(admin())
        .send({ name: 'budget', type: 'cost', credit_limit: 10, conditions: [{ key: 'metadata.test', value: 'unpriced' }] });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));
      policyId = policy.body.id;
      for (const model of ['my-private-finetune', 'gpt-4o', 'my-private-finetune']) assert.equal((await chat(model)).status, 200);
      await logsSettled(gw, 3);
      await gw.app.services.requestLogs.flush();
    });
    after(() => gw.close());

    it('the log marks the request unpriced, with cost 0 not counted', async () => {
      const list = await gw.app.http.get('/v1/logs').set(admin());
      assert.equal(list.status, 200);
      const byModel = (model: string) => list.body.data.filter((log: { model: string }) => log.model === model);
      for (const log of byModel('my-private-finetune')) {
        assert.equal(log.cost_unpriced, true);
        assert.equal(log.cost, 0);
      }
      assert.equal(byModel('gpt-4o')[0].cost_unpriced, false);
      assert.ok(byModel('gpt-4o')[0].cost > 0);
    });

    it('analytics count unpriced requests', async () => {
      const summary = await gw.app.http.get('/v1/analytics/summary').set(admin());
      assert.equal(summary.status, 200);
      assert.equal(summary.body.unpriced_requests, 2);
      assert.equal(summary.body.requests, 3);
    });

    it('a cost budget says it could not count them, and counts only what it could price', async () => {
      const entities = await gw.app.http.get(`/v2/policies/usage-limits/${policyId}/entities`).set(admin());
      assert.equal(entities.status, 200);
      const [entity] = entities.body.data;
      assert.equal(entity.unpriced_requests, 2);
      const gpt4o = (FAKE_USAGE.prompt_tokens * 2.5 + FAKE_USAGE.completion_tokens * 10) / 1e6;
      assert.ok(Math.abs(entity.usage - gpt4o) < 1e-9, `usage ${entity.usage} is gpt-4o's cost alone`);
      const reset = await gw.app.http.post(`/v2/policies/usage-limits/${policyId}/entities/${entity.entity_id}/reset`).set(admin());
      assert.equal(reset.status, 200);
      assert.equal(reset.body.unpriced_requests, 0);
    });
  });
}
