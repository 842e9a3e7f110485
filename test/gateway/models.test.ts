/** GET /v1/models: the bundled catalog without a provider signal (or when asked), else the provider's own list proxied. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KNOWN_MODELS } from '../../gateway/catalog/known-models.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

// Every model id the spec names (gateway-spec.md, chat request `model` row).
const SPEC_MODEL_IDS =
  'gpt-5 gpt-5-mini gpt-5-nano o4-mini o3 o3-mini o1 o1-mini gpt-4o gpt-4o-mini gpt-4o-2024-05-13 gpt-4-turbo gpt-4-turbo-2024-04-09 gpt-4-0125-preview gpt-4-turbo-preview gpt-4-1106-preview gpt-4-vision-preview gpt-4 gpt-4-0314 gpt-4-0613 gpt-4-32k gpt-4-32k-0314 gpt-4-32k-0613 gpt-3.5-turbo gpt-3.5-turbo-16k gpt-3.5-turbo-0301 gpt-3.5-turbo-0613 gpt-3.5-turbo-1106 gpt-3.5-turbo-0125 gpt-3.5-turbo-16k-0613'.split(' ');

describe('models list', () => {
  let gw: GatewayApp;
  before(async () => {
    gw = await startGatewayApp();
  });
  after(() => gw.close());

  it('answers the catalog when no provider is named, including every model id of the spec', async () => {
    const models = await gw.openai().models.list();
    const ids = models.data.filter((model) => (model as { provider?: string }).provider === 'openai').map((model) => model.id);
    for (const id of SPEC_MODEL_IDS) assert.ok(ids.includes(id), `catalog lacks ${id}`);
    assert.equal(models.data.length, Object.values(KNOWN_MODELS).flat().length);
  });

  it('proxies to the provider when one is named', async () => {
    const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((model) => model.id),
      ['gpt-fake-1'],
    );
    assert.equal(gw.fake.requests.at(-1)!.path, '/v1/models');
    assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-upstream');
  });

  it('proxies to the config\'s first target when a config is the provider signal', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-from-config', custom_host: gw.fake.url }, { provider: 'groq', api_key: 'gsk' }] };
    const response = await gw.app.http.get('/v1/models').set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify(config) });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(
      response.body.data.map((model: { id: string }) => model.id),
      ['gpt-fake-1'],
    );
    assert.equal(gw.fake.requests.at(-1)!.path, '/v1/models');
    assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-from-config');
  });

  it('answers the catalog despite a provider when x-gw-fetch-integrated-models is true', async () => {
    const calls = gw.fake.requests.length;
    const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, 'x-gw-fetch-integrated-models': 'true' });
    const models = await client.models.list();
    assert.ok(models.data.some((model) => model.id === 'gpt-5'));
    assert.equal(gw.fake.requests.length, calls);
  });

  it('keeps the upstream status of a failing models list', async () => {
    gw.fake.next({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const response = await gw.app.http.get('/v1/models').set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer bad' });
    assert.equal(response.status, 401);
    assert.equal(response.body.error.message, 'Incorrect API key provided');
  });
});
