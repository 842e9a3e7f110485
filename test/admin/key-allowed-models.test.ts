/**
 * An API key's allowed_models: set on create and update, shown on the key, and held on every
 * gateway call for each target the request is routed to (a model, `@slug/model`, `@slug`, a
 * trailing `*`): a model off the list answers 403 model_not_allowed with no upstream call and no
 * cache hit, a config falls back past a refused target, and pass-through calls naming a model are
 * held to it too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const messages = [{ role: 'user', content: 'hi' }];

for (const engine of fullEngines()) {
  describe(`API keys with allowed_models (${engine.name})`, () => {
    let gw: GatewayApp;
    let keyId: string;
    let key: string;
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
    const direct = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' });
    const chat = (headers: Record<string, string>, model: string) => gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': key, ...headers }).send({ model, messages });

    before(async () => {
      gw = await startGatewayApp({ engine });
      const saved = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'OpenAI', slug: 'oai', ai_provider_id: 'openai', key: 'sk-saved', configurations: { custom_host: gw.fake.url } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const created = await gw.app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'mini only', workspace_id: 'default', scopes: ['completions.write'], allowed_models: ['gpt-4o-mini', 'o3*', '@oai/*'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.allowed_models, ['gpt-4o-mini', 'o3*', '@oai/*']);
      keyId = created.body.id;
      key = created.body.key;
    });
    after(() => gw.close());

    test('a listed model, a prefix match and any model of a listed saved provider are served', async () => {
      for (const [headers, model] of [
        [direct(), 'gpt-4o-mini'],
        [direct(), 'o3-mini'],
        [{}, '@oai/gpt-4o'],
      ] as const) {
        const answer = await chat(headers, model);
        assert.equal(answer.status, 200, `${model}: ${JSON.stringify(answer.body)}`);
      }
    });

    test('a model off the list answers 403 model_not_allowed without calling the provider', async () => {
      const calls = gw.fake.requests.length;
      const refused = await chat(direct(), 'gpt-4o');
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'model_not_allowed');
      assert.match(refused.body.error.message, /gpt-4o.*allowed_models/);
      assert.equal(gw.fake.requests.length, calls);
    });

    test('a cached answer is not served to a key that may not use its model', async () => {
      const config = JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, cache: { mode: 'simple', max_age: 60 } });
      const warmed = await gw.app.http.post('/v1/chat/completions').set({ ...admin(), 'x-gw-config': config }).send({ model: 'gpt-4.1', messages });
      assert.equal(warmed.status, 200);
      const hit = await gw.app.http.post('/v1/chat/completions').set({ ...admin(), 'x-gw-config': config }).send({ model: 'gpt-4.1', messages });
      assert.equal(hit.headers['x-gw-cache-status'], 'HIT');
      const refused = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': key, 'x-gw-config': config }).send({ model: 'gpt-4.1', messages });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'model_not_allowed');
    });

    test('a fallback config moves past a target whose model the key may not use', async () => {
      const target = (model: string) => ({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, override_params: { model } });
      const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [target('gpt-4o'), target('gpt-4o-mini')] });
      const answer = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': key, 'x-gw-config': config }).send({ model: 'gpt-4o', messages });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal((gw.fake.requests.at(-1)!.body as { model: string }).model, 'gpt-4o-mini');
    });

    test('a pass-through call naming a model is held to the list', async () => {
      const refused = await gw.app.http.post('/v1/images/generations').set({ 'x-gw-api-key': key, ...direct() }).send({ model: 'dall-e-3', prompt: 'a cat' });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'model_not_allowed');
    });

    test('a key limited to models grants only entries of its own list, so it cannot lift its own limit', async () => {
      const limited = await gw.app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'limited manager', workspace_id: 'default', scopes: ['api_keys.create', 'api_keys.update', 'completions.write'], allowed_models: ['gpt-4o-mini'] });
      assert.equal(limited.status, 201, JSON.stringify(limited.body));
      const as = { 'x-gw-api-key': limited.body.key as string };
      const unlimited = await gw.app.http.post('/v1/api-keys/workspace/service').set(as).send({ name: 'wide', workspace_id: 'default', scopes: ['completions.write'] });
      assert.equal(unlimited.status, 403, JSON.stringify(unlimited.body));
      assert.equal(unlimited.body.error.code, 'model_not_grantable');
      const wider = await gw.app.http.post('/v1/api-keys/workspace/service').set(as).send({ name: 'wider', workspace_id: 'default', scopes: ['completions.write'], allowed_models: ['gpt-4o'] });
      assert.equal(wider.status, 403);
      const narrow = await gw.app.http.post('/v1/api-keys/workspace/service').set(as).send({ name: 'narrow', workspace_id: 'default', scopes: ['completions.write'], allowed_models: ['gpt-4o-mini'] });
      assert.equal(narrow.status, 201, JSON.stringify(narrow.body));
      const lifted = await gw.app.http.put(`/v1/api-keys/${limited.body.id}`).set(as).send({ allowed_models: null });
      assert.equal(lifted.status, 403, JSON.stringify(lifted.body));
      assert.equal(lifted.body.error.code, 'model_not_grantable');
      const renamed = await gw.app.http.put(`/v1/api-keys/${limited.body.id}`).set(as).send({ name: 'still limited' });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    });

    test('the list is changed and removed by an update; a malformed entry is refused', async () => {
      const bad = await gw.app.http.put(`/v1/api-keys/${keyId}`).set(admin()).send({ allowed_models: ['gpt 4o'] });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      const cleared = await gw.app.http.put(`/v1/api-keys/${keyId}`).set(admin()).send({ allowed_models: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      const shown = await gw.app.http.get(`/v1/api-keys/${keyId}`).set(admin());
      assert.equal(shown.body.allowed_models, null);
      const served = await chat(direct(), 'gpt-4o');
      assert.equal(served.status, 200, JSON.stringify(served.body));
    });
  });
}
