/** Upstream calls share pooled keep-alive connections: one socket serves calls that follow each other. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

describe('upstream connection pool', () => {
  let gw: GatewayApp;
  before(async () => {
    gw = await startGatewayApp();
  });
  after(() => gw.close());

  it('reuses one keep-alive connection for calls in sequence, plain and streamed', async () => {
    const headers = { 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' };
    const calls = gw.fake.requests.length;
    for (let i = 0; i < 4; i++) {
      const response = await gw.app.http.post('/v1/chat/completions').set(headers).send(i % 2 ? { ...body, stream: true } : body);
      assert.equal(response.status, 200, response.text);
    }
    assert.equal(gw.fake.requests.length, calls + 4);
    assert.equal(gw.fake.connections, 1, 'four upstream calls, one connection');
  });
});
