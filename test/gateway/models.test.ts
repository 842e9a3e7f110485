/**
 * GET /v1/models: with only a gw key, the saved providers' models as `@slug/model`; the bundled
 * catalog when asked for; else the provider's own list proxied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { KNOWN_MODELS } from '../../gateway/catalog/known-models.js';
import { fullEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { assertOpenAiShape } from '../helpers/openai-reference.js';

// Every model id the spec names (gateway-spec.md, chat request `model` row).
const SPEC_MODEL_IDS =
  'gpt-5 gpt-5-mini gpt-5-nano o4-mini o3 o3-mini o1 o1-mini gpt-4o gpt-4o-mini gpt-4o-2024-05-13 gpt-4-turbo gpt-4-turbo-2024-04-09 gpt-4-0125-preview gpt-4-turbo-preview gpt-4-1106-preview gpt-4-vision-preview gpt-4 gpt-4-0314 gpt-4-0613 gpt-4-32k gpt-4-32k-0314 gpt-4-32k-0613 gpt-3.5-turbo gpt-3.5-turbo-16k gpt-3.5-turbo-0301 gpt-3.5-turbo-0613 gpt-3.5-turbo-1106 gpt-3.5-turbo-0125 gpt-3.5-turbo-16k-0613'.split(' ');

for (const engine of fullEngines()) {
  describe(`models list with only a gw key: the saved providers' models (${engine.name})`, () => {
    let gw: GatewayApp;
    let client: OpenAI;
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
    before(async () => {
      gw = await startGatewayApp({ engine });
      // What a new user's client looks like: base URL and the gw key, no gw header.
      client = new OpenAI({ apiKey: gw.app.adminKey, baseURL: `${gw.app.url}/v1`, maxRetries: 0 });
    });
    after(() => gw.close());

    it('lists nothing before a provider is saved, in the OpenAI list shape', async () => {
      const response = await gw.app.http.get('/v1/models').set(admin());
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { object: 'list', data: [] });
      assertOpenAiShape('ListModelsResponse', response.body);
    });

    it('lists each saved provider\'s models as @slug/model, and each id works as the model of a chat call', async () => {
      const saved = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'Main', slug: 'main', ai_provider_id: 'openai', key: 'sk-main' });
      assert.equal(saved.status, 201);
      const azure = await gw.app.http
        .post('/v1/providers')
        .set(admin())
        .send({ name: 'Az', slug: 'az', ai_provider_id: 'azure-openai', key: 'az-key', configurations: { resource_name: 'res', deployment_id: 'gpt4o-prod', api_version: '2024-10-21' } });
      assert.equal(azure.status, 201);
      const local = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'Local', slug: 'local', ai_provider_id: 'ollama', key: 'unused' });
      assert.equal(local.status, 201);
      // Another workspace's provider is not the caller's to use.
      const team = await gw.app.http.post('/v1/workspaces').set(admin()).send({ name: 'Team M' });
      const elsewhere = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'Theirs', slug: 'theirs', ai_provider_id: 'openai', key: 'k', workspace_id: team.body.id });
      assert.equal(elsewhere.status, 201);

      const models = await client.models.list();
      const ids = models.data.map((model) => model.id);
      const expected = [...KNOWN_MODELS.openai!.map((id) => `@main/${id}`), '@az/gpt4o-prod'];
      assert.deepEqual(ids, expected);
      const first = models.data[0] as OpenAI.Models.Model & { provider?: string };
      assert.equal(first.object, 'model');
      assert.equal(first.owned_by, 'openai');
      assert.equal(first.provider, '@main');
      const raw = await gw.app.http.get('/v1/models').set(admin());
      assertOpenAiShape('ListModelsResponse', raw.body);

      // The id goes back as it is: the saved provider serves it, without its @slug/ prefix upstream.
      const completion = await client.chat.completions.create({ model: ids.find((id) => id === '@main/gpt-4o-mini')!, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(gw.fake.requests.at(-1)!.body.model, 'gpt-4o-mini');
      assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-main');
    });

    it('a provider on an integration lists the integration\'s enabled models', async () => {
      const integration = await gw.app.http
        .post('/v1/integrations')
        .set(admin())
        .send({ name: 'Shared Groq', slug: 'shared-groq', ai_provider_id: 'groq', key: 'gsk-shared', workspace_access: { all_workspaces: true, workspace_ids: [] } });
      assert.equal(integration.status, 201);
      const models = await gw.app.http
        .put('/v1/integrations/shared-groq/integration-models')
        .set(admin())
        .send({ models: [{ slug: 'llama-3.3-70b-versatile' }, { slug: 'retired-model', enabled: false }, { slug: 'qwen-qwq-32b' }] });
      assert.equal(models.status, 200, JSON.stringify(models.body));
      const provider = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'Groq', slug: 'groq', integration_id: 'shared-groq' });
      assert.equal(provider.status, 201);

      const ids = (await client.models.list()).data.map((model) => model.id).filter((id) => id.startsWith('@groq/'));
      assert.deepEqual(ids, ['@groq/llama-3.3-70b-versatile', '@groq/qwen-qwq-32b']);
    });

    it('the catalog when asked for with x-gw-fetch-integrated-models: true', async () => {
      const models = await gw.openai({ 'x-gw-fetch-integrated-models': 'true' }).models.list();
      const ids = models.data.filter((model) => (model as { provider?: string }).provider === 'openai').map((model) => model.id);
      for (const id of SPEC_MODEL_IDS) assert.ok(ids.includes(id), `catalog lacks ${id}`);
      assert.equal(models.data.length, Object.values(KNOWN_MODELS).flat().length);
    });

    it('a chat call that selects no provider is told to send model "@slug/model" first', async () => {
      const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(
        () => assert.fail('a call naming no provider must be refused'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      const body = error.error as { code: string; message: string };
      assert.equal(body.code, 'provider_missing');
      assert.match(body.message, /^Select a provider: model: "@provider-slug\/model"/);
    });
  });
}

describe('models list with a provider signal', () => {
  let gw: GatewayApp;
  before(async () => {
    gw = await startGatewayApp();
  });
  after(() => gw.close());

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
