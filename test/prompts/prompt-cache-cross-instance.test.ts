import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clusterEngines } from '../helpers/engines.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';

/**
 * Resolved prompts are cached in each instance's memory, like configs: a change made on one
 * instance reaches the other's very next render through Redis. Needs GW_TEST_REDIS_URL.
 */
const engines = clusterEngines();

if (!engines.length) test.skip('cross-instance prompt invalidation needs GW_TEST_REDIS_URL', () => undefined);

for (const engine of engines) {
  describe(`prompt changes reach every instance at once (${engine.name})`, () => {
    let cluster: TestCluster | undefined;
    let a: TestApp;
    let b: TestApp;
    const admin = () => ({ 'x-gw-api-key': a.adminKey });

    before(async () => {
      cluster = await startTestCluster(2, { engine });
      [a, b] = cluster.apps as [TestApp, TestApp];
    });
    after(async () => {
      await cluster?.close();
    });

    test('makeDefault, a label move and a partial edit on A show in B\'s next render', async () => {
      await a.http.post('/v1/prompts/partials').set(admin()).send({ name: 'xi-part', string: 'p1' });
      const prompt = await a.http.post('/v1/prompts').set(admin()).send({ name: 'xi-prompt', model: 'gpt-4o', string: 'v1 {{>xi-part}}' });
      const id = prompt.body.id as string;
      await a.http.put(`/v1/prompts/${id}`).set(admin()).send({ patch: true, string: 'v2 {{>xi-part}}' });
      await a.http.put(`/v1/prompts/${id}/versions/1`).set(admin()).send({ label_id: 'staging' });
      const render = async (address: string) => (await b.http.post(`/v1/prompts/${address}/render`).set(admin()).send({ variables: {} })).body.data.messages[0].content;
      // B caches all three addresses.
      assert.equal(await render(id), 'v1 p1');
      assert.equal(await render(`${id}@staging`), 'v1 p1');

      await a.http.put(`/v1/prompts/${id}/makeDefault`).set(admin()).send({ version: 2 });
      assert.equal(await render(id), 'v2 p1');
      await a.http.put(`/v1/prompts/${id}/versions/2`).set(admin()).send({ label_id: 'staging' });
      assert.equal(await render(`${id}@staging`), 'v2 p1');
      const partial = await a.http.put('/v1/prompts/partials/xi-part').set(admin()).send({ string: 'p2' });
      await a.http.put(`/v1/prompts/partials/${partial.body.id}/makeDefault`).set(admin()).send({ version: 2 });
      assert.equal(await render(id), 'v2 p2');
    });
  });
}
