import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clusterEngines, fullEngines, type Engine } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';

/**
 * A provider or config changed through the Admin API is in force on the gateway's very next chat
 * request: on the same instance (direct invalidation), and on a second instance over the same
 * database when Redis carries the invalidation. No waiting between the change and the request.
 */
const setups: Array<{ name: string; engine: Engine; instances: 1 | 2 }> = fullEngines().map((engine) => ({ name: engine.name, engine, instances: 1 }));
for (const engine of clusterEngines()) setups.push({ name: `two instances, ${engine.name}`, engine, instances: 2 });

const messages = [{ role: 'user', content: 'hi' }];

for (const setup of setups) {
  describe(`the gateway's next request sees admin changes (${setup.name})`, () => {
    let fake: FakeOpenAi;
    let cluster: TestCluster | undefined;
    /** Where changes are made. */
    let writer: TestApp;
    /** Where gateway traffic goes: the writer itself, or a second instance. */
    let gateway: TestApp;
    const admin = () => ({ 'x-gw-api-key': writer.adminKey });
    const chat = (headers: Record<string, string>) =>
      gateway.http.post('/v1/chat/completions').set({ 'x-gw-api-key': gateway.adminKey, ...headers }).send({ model: 'gpt-4o', messages });

    before(async () => {
      fake = await startFakeOpenAi();
      cluster = await startTestCluster(setup.instances, { engine: setup.engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      writer = cluster.apps[0]!;
      gateway = cluster.apps.at(-1)!;
    });
    after(async () => {
      await cluster?.close();
      await fake?.close();
    });

    test('a provider whose key changes, then is deleted', async () => {
      const created = await writer.http
        .post('/v1/providers')
        .set(admin())
        .send({ name: 'Live', slug: 'live', ai_provider_id: 'openai', key: 'sk-live-one', configurations: { custom_host: fake.url } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const first = await chat({ 'x-gw-provider': '@live' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-live-one');

      assert.equal((await writer.http.put(`/v1/providers/${created.body.id}`).set(admin()).send({ key: 'sk-live-two' })).status, 200);
      const second = await chat({ 'x-gw-provider': '@live' });
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-live-two');

      assert.equal((await writer.http.delete(`/v1/providers/${created.body.id}`).set(admin())).status, 200);
      const gone = await chat({ 'x-gw-provider': '@live' });
      assert.equal(gone.status, 400);
      assert.equal(gone.body.error.param, 'x-gw-provider');
    });

    test('a config whose parameters change, then is deleted', async () => {
      const target = { provider: 'openai', api_key: 'sk-config', custom_host: fake.url };
      const created = await writer.http
        .post('/v1/configs')
        .set(admin())
        .send({ name: 'Live config', slug: 'live-config', config: { ...target, override_params: { temperature: 0.1 } } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await chat({ 'x-gw-config': 'live-config' })).status, 200);
      assert.equal(fake.requests.at(-1)!.body.temperature, 0.1);

      const updated = await writer.http
        .put(`/v1/configs/${created.body.id}`)
        .set(admin())
        .send({ config: { ...target, override_params: { temperature: 0.9 } } });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal((await chat({ 'x-gw-config': 'live-config' })).status, 200);
      assert.equal(fake.requests.at(-1)!.body.temperature, 0.9);

      assert.equal((await writer.http.delete(`/v1/configs/${created.body.id}`).set(admin())).status, 200);
      const gone = await chat({ 'x-gw-config': 'live-config' });
      assert.ok(gone.status >= 400 && gone.status < 500, `${gone.status} ${JSON.stringify(gone.body)}`);
      assert.equal(gone.body.error.param, 'x-gw-config');
    });

    test('a revoked key is refused', async () => {
      const key = await writer.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'k', workspace_id: 'default', scopes: ['completions.write'] });
      const headers = { 'x-gw-api-key': key.body.key as string, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-inline' };
      const send = () => gateway.http.post('/v1/chat/completions').set(headers).send({ model: 'gpt-4o', messages });
      assert.equal((await send()).status, 200);
      assert.equal((await writer.http.delete(`/v1/api-keys/${key.body.id}`).set(admin())).status, 200);
      const refused = await send();
      assert.equal(refused.status, 401);
    });
  });
}
