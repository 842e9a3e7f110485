/** End to end: a real chat call through the gateway lands in the logs table and in the logs API. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { assertEndpointRolledUp } from './rollup-check.js';

for (const engine of storeEngines()) {
  describe(`a chat call produces a log row (${engine.name})`, () => {
    let gw: GatewayApp;
    before(async () => {
      gw = await startGatewayApp({ engine, env: { ORGANISATION_HEADERS_TO_MASK: 'x-org-secret' } });
    });
    after(() => gw.close());

    test('the call is listed and readable through /v1/logs with credentials hashed', async () => {
      const response = await gw.app.http
        .post('/v1/chat/completions')
        .set({
          'x-gw-api-key': gw.app.adminKey,
          'x-gw-provider': 'openai',
          'x-gw-custom-host': gw.fake.url,
          authorization: 'Bearer sk-upstream-secret',
          'x-gw-trace-id': 'e2e-trace-1',
          'x-gw-metadata': JSON.stringify({ env: 'e2e' }),
          'x-org-secret': 'do-not-store',
        })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      await logsSettled(gw, 1);
      await gw.app.services.requestLogs.flush();
      await assertEndpointRolledUp(gw.app.services.db, 'chat.completions', 'a gateway chat request');

      const admin = { 'x-gw-api-key': gw.app.adminKey };
      const listed = await gw.app.http.get('/v1/logs').query({ trace_id: 'e2e-trace-1', metadata: 'env=e2e' }).set(admin);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.data.length, 1);
      const summary = listed.body.data[0];
      assert.equal(summary.status, 200);
      assert.equal(summary.model, 'gpt-4o');
      assert.equal(summary.source, 'gateway');

      const one = await gw.app.http.get(`/v1/logs/${summary.id}`).set(admin);
      assert.equal(one.status, 200);
      assert.equal(one.body.request_body.model, 'gpt-4o');
      assert.ok(one.body.response_body, 'the answer is logged');
      const stored = JSON.stringify(one.body.request_headers);
      assert.ok(!stored.includes('sk-upstream-secret') && !stored.includes('do-not-store') && !stored.includes(gw.app.adminKey));
      assert.match(one.body.request_headers['x-org-secret'], /^sha256:[0-9a-f]{64}$/);
    });
  });
}
