/** The four provider modes, the `@slug/model` form, what is missing when none applies, and block_inline_config. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const messages = [{ role: 'user', content: 'hi' }];

async function chat(gw: GatewayApp, headers: Record<string, string>, body: Record<string, unknown> = { model: 'gpt-4o', messages }) {
  return gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': gw.app.adminKey, ...headers }).send(body);
}

for (const engine of storeEngines()) {
  describe(`provider modes (${engine.name})`, () => {
    let gw: GatewayApp;
    let configId: string;
    before(async () => {
      gw = await startGatewayApp({ engine });
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      const saved = await gw.app.http
        .post('/v1/providers')
        .set(admin)
        .send({ name: 'Fake OpenAI', slug: 'fake-openai', ai_provider_id: 'openai', key: 'sk-saved', configurations: { custom_host: gw.fake.url } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const config = await gw.app.http
        .post('/v1/configs')
        .set(admin)
        .send({ name: 'Via saved provider', slug: 'via-saved', config: { virtual_key: 'fake-openai', override_params: { temperature: 0.5 } } });
      assert.equal(config.status, 201, JSON.stringify(config.body));
      configId = config.body.id;
    });
    after(() => gw.close());

    it('saved provider: x-gw-provider @slug, legacy x-gw-virtual-key, and model @slug/model', async () => {
      for (const [headers, model] of [
        [{ 'x-gw-provider': '@fake-openai' }, 'gpt-4o'],
        [{ 'x-gw-virtual-key': 'fake-openai' }, 'gpt-4o'],
        [{}, '@fake-openai/gpt-4o-mini'],
      ] as const) {
        const response = await chat(gw, headers, { model, messages });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        const upstream = gw.fake.requests.at(-1)!;
        assert.equal(upstream.headers.authorization, 'Bearer sk-saved');
        assert.equal(upstream.body.model, model.startsWith('@') ? 'gpt-4o-mini' : model);
        assert.equal(response.headers['x-gw-provider'], 'openai');
      }
    });

    it('an unknown saved provider is a 400 naming x-gw-provider', async () => {
      const response = await chat(gw, { 'x-gw-provider': '@nope' });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.param, 'x-gw-provider');
    });

    it('provider name plus Authorization reaches the fixed host (overridden to the fake in tests)', async () => {
      const response = await chat(gw, { 'x-gw-provider': 'groq', authorization: 'Bearer gsk-1' });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(gw.fake.requests.at(-1)!.path, '/openai/v1/chat/completions');
      assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer gsk-1');
      assert.equal(response.headers['x-gw-provider'], 'groq');
    });

    it('azure-openai takes the cloud1 headers and sends the key as api-key', async () => {
      const response = await chat(gw, {
        'x-gw-provider': 'azure-openai',
        authorization: 'Bearer az-1',
        'x-gw-cloud1-resource-name': 'res',
        'x-gw-cloud1-deployment-id': 'dep',
        'x-gw-cloud1-api-version': '2024-10-21',
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const upstream = gw.fake.requests.at(-1)!;
      assert.equal(upstream.path, '/openai/deployments/dep/chat/completions?api-version=2024-10-21');
      assert.equal(upstream.headers['api-key'], 'az-1');
      assert.equal(upstream.headers.authorization, undefined);
      // x-gw-cloud1-model-name names the deployment's real model, which the max_tokens rule judges.
      const calls = gw.fake.requests.length;
      const reasoning = await chat(
        gw,
        { 'x-gw-provider': 'azure-openai', authorization: 'Bearer az-1', 'x-gw-cloud1-resource-name': 'res', 'x-gw-cloud1-deployment-id': 'dep', 'x-gw-cloud1-api-version': '2024-10-21', 'x-gw-cloud1-model-name': 'o4-mini' },
        { model: 'dep', messages, max_tokens: 10 },
      );
      assert.equal(reasoning.status, 400, JSON.stringify(reasoning.body));
      assert.equal(reasoning.body.error.param, 'max_tokens');
      assert.equal(gw.fake.requests.length, calls, 'no upstream call');
    });

    it('config: a saved config by slug, and an inline config', async () => {
      const saved = await chat(gw, { 'x-gw-config': 'via-saved' });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(gw.fake.requests.at(-1)!.body.temperature, 0.5);
      assert.equal(saved.headers['x-gw-last-used-option-index'], '');
      gw.fake.requests.length = 0;
      const byId = await chat(gw, { 'x-gw-config': configId });
      assert.equal(byId.status, 200, JSON.stringify(byId.body));
      assert.equal(gw.fake.requests.at(-1)?.body.temperature, 0.5, 'the config found by id shaped the upstream call');
      assert.equal(gw.logs.at(-1)!.config_id, configId);
      const inline = await chat(gw, { 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-inline', custom_host: gw.fake.url }) });
      assert.equal(inline.status, 200, JSON.stringify(inline.body));
      assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-inline');
    });

    it('config errors: unknown config, bad JSON, invalid config', async () => {
      const unknown = await chat(gw, { 'x-gw-config': 'no-such-config' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'x-gw-config');
      const badJson = await chat(gw, { 'x-gw-config': '{not json' });
      assert.equal(badJson.status, 400);
      assert.equal(badJson.body.error.param, 'x-gw-config');
      const invalid = await chat(gw, { 'x-gw-config': JSON.stringify({ strategy: { mode: 'sideways' }, targets: [] }) });
      assert.equal(invalid.status, 400);
      assert.match(invalid.body.error.param, /^config/);
    });

    it('custom host: x-gw-custom-host + x-gw-provider + Authorization', async () => {
      const response = await chat(gw, { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-ch' });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-ch');
    });

    it('any other combination is a 400 naming what is missing', async () => {
      const none = await chat(gw, {});
      assert.equal(none.status, 400);
      assert.equal(none.body.error.param, 'x-gw-provider');
      const hostOnly = await chat(gw, { 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer k' });
      assert.equal(hostOnly.status, 400);
      assert.equal(hostOnly.body.error.param, 'x-gw-provider');
      const noKey = await chat(gw, { 'x-gw-provider': 'openai' });
      assert.equal(noKey.status, 400);
      assert.equal(noKey.body.error.param, 'authorization');
      const hostNoKey = await chat(gw, { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
      assert.equal(hostNoKey.status, 400);
      assert.equal(hostNoKey.body.error.param, 'authorization');
      const unknownProvider = await chat(gw, { 'x-gw-provider': 'not-a-provider', authorization: 'Bearer k' });
      assert.equal(unknownProvider.status, 400);
      assert.equal(unknownProvider.body.error.param, 'x-gw-provider');
      const azureMissing = await chat(gw, { 'x-gw-provider': 'azure-openai', authorization: 'Bearer k', 'x-gw-cloud1-resource-name': 'r' });
      assert.equal(azureMissing.status, 400);
      assert.equal(azureMissing.body.error.param, 'x-gw-cloud1-deployment-id');
    });

    it('a custom host on a private address is refused unless trusted', async () => {
      const response = await chat(gw, { 'x-gw-provider': 'openai', 'x-gw-custom-host': 'http://10.0.0.8/v1', authorization: 'Bearer k' });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.param, 'x-gw-custom-host');
      const ollama = await chat(gw, { 'x-gw-provider': 'ollama' });
      assert.equal(ollama.status, 400, 'ollama defaults to localhost, which is not trusted here');
      assert.equal(ollama.body.error.param, 'x-gw-custom-host');
    });

    it('the organisation setting block_inline_config refuses inline modes at once (runs last: it changes the organisation)', async () => {
      const update = await gw.app.http.put('/v1/admin/organisation/settings').set({ 'x-gw-api-key': gw.app.adminKey }).send({ block_inline_config: true });
      assert.equal(update.status, 200, JSON.stringify(update.body));
      const inline = await chat(gw, { 'x-gw-provider': 'openai', authorization: 'Bearer k' });
      assert.equal(inline.status, 403);
      assert.equal(inline.body.error.code, 'inline_config_blocked');
      const saved = await chat(gw, { 'x-gw-config': 'via-saved' });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    });
  });

  describe(`block_inline_config (${engine.name})`, () => {
    let gw: GatewayApp;
    before(async () => {
      gw = await startGatewayApp({ engine, env: { BLOCK_INLINE_CONFIG: 'true' } });
      const saved = await gw.app.http
        .post('/v1/providers')
        .set({ 'x-gw-api-key': gw.app.adminKey })
        .send({ name: 'Fake OpenAI', slug: 'fake-openai', ai_provider_id: 'openai', key: 'sk-saved', configurations: { custom_host: gw.fake.url } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    });
    after(() => gw.close());

    it('refuses an inline provider, a custom host and an inline config; saved resources still work', async () => {
      const inline: Array<Record<string, string>> = [
        { 'x-gw-provider': 'openai', authorization: 'Bearer k' },
        { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer k' },
        { 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'k' }) },
      ];
      for (const headers of inline) {
        const response = await chat(gw, headers);
        assert.equal(response.status, 403, JSON.stringify(response.body));
        assert.equal(response.body.error.code, 'inline_config_blocked');
      }
      const saved = await chat(gw, { 'x-gw-provider': '@fake-openai' });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    });

    it('refuses a run with an inline provider at once (403, nothing queued, no thread left), as chat does', async () => {
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      const assistant = await gw.app.http.post('/v1/assistants').set(admin).send({ model: 'gpt-4o' });
      assert.equal(assistant.status, 200, JSON.stringify(assistant.body));
      const threadsBefore = await gw.app.services.db('assistant_threads').count({ n: '*' }).first();
      const inline: Array<Record<string, string>> = [
        { 'x-gw-provider': 'openai', authorization: 'Bearer k' },
        { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer k' },
        { 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'k' }) },
      ];
      for (const headers of inline) {
        const created = await gw.app.http.post('/v1/threads/runs').set({ ...admin, ...headers }).send({ assistant_id: assistant.body.id, thread: { messages: [{ role: 'user', content: 'hi' }] } });
        assert.equal(created.status, 403, JSON.stringify(created.body));
        assert.equal(created.body.error.code, 'inline_config_blocked');
      }
      assert.deepEqual(await gw.app.services.db('assistant_threads').count({ n: '*' }).first(), threadsBefore);

      const thread = await gw.app.http.post('/v1/threads').set(admin).send({ messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(thread.status, 200, JSON.stringify(thread.body));
      const run = await gw.app.http.post(`/v1/threads/${thread.body.id}/runs`).set({ ...admin, ...inline[0] }).send({ assistant_id: assistant.body.id });
      assert.equal(run.status, 403, JSON.stringify(run.body));
      assert.equal(run.body.error.code, 'inline_config_blocked');
      const saved = await gw.app.http.post(`/v1/threads/${thread.body.id}/runs`).set({ ...admin, 'x-gw-provider': '@fake-openai' }).send({ assistant_id: assistant.body.id });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(saved.body.status, 'queued');
    });

    it('refuses a batch with an inline provider when it is created, not line by line', async () => {
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      const line = JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o', messages } });
      const file = await gw.app.http.post('/v1/files').set(admin).field('purpose', 'batch').attach('file', Buffer.from(`${line}\n`), 'input.jsonl');
      assert.equal(file.status, 200, JSON.stringify(file.body));
      const batch = { input_file_id: file.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' };
      for (const mode of ['gateway', undefined]) {
        const headers = { ...admin, 'x-gw-provider': 'openai', authorization: 'Bearer k', ...(mode ? { 'x-gw-batch-mode': mode } : {}) };
        const created = await gw.app.http.post('/v1/batches').set(headers).send(batch);
        assert.equal(created.status, 403, JSON.stringify(created.body));
        assert.equal(created.body.error.code, 'inline_config_blocked');
      }
      const saved = await gw.app.http.post('/v1/batches').set({ ...admin, 'x-gw-provider': '@fake-openai' }).send(batch);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    });
  });
}
