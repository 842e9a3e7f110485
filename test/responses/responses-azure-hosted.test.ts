/**
 * Azure OpenAI hosts the Responses API's tools too: a Responses call offering a hosted tool to an
 * azure-openai target goes to the resource's v1 Responses API (`/openai/v1/responses`, the
 * deployment as the model, the key as `api-key`), hosted tools included and nothing left out;
 * without hosted tools the call keeps the deployment's chat completions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { responseSchemaErrors } from './response-schema.js';

for (const engine of fullEngines()) {
  describe(`Responses hosted tools on Azure OpenAI (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });
    const post = (body: Record<string, unknown>) =>
      app.http
        .post('/v1/responses')
        .set({
          'x-gw-api-key': ADMIN_KEY,
          'x-gw-provider': 'azure-openai',
          // The custom host replaces the resource's origin.
          'x-gw-custom-host': new URL(fake.url).origin,
          authorization: 'Bearer az-key',
          'x-gw-cloud1-resource-name': 'res',
          'x-gw-cloud1-deployment-id': 'my-deployment',
          'x-gw-cloud1-api-version': '2024-10-21',
        })
        .send(body);

    it('forwards a call offering web_search to the v1 Responses API with the deployment as the model', async () => {
      const answer = await post({ model: 'gpt-4o', input: 'Search the news', tools: [{ type: 'web_search' }] });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.headers['x-gw-omitted-tools'], undefined);
      const sent = fake.requests.at(-1)!;
      assert.equal(sent.path, '/openai/v1/responses');
      assert.equal(sent.headers['api-key'], 'az-key');
      assert.equal((sent.body as { model: string }).model, 'my-deployment');
      assert.deepEqual(((sent.body as { tools: Array<{ type: string }> }).tools).map((tool) => tool.type), ['web_search']);
      assert.equal(responseSchemaErrors(answer.body), '');
    });

    it('sends a call without hosted tools to the deployment chat completions, as before', async () => {
      const answer = await post({ model: 'gpt-4o', input: 'hi' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(fake.requests.at(-1)!.path, '/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21');
    });
  });
}
