/**
 * Rate limits hold across planes like budgets (test/deployments/data-plane-fleet-e2e.test.ts): a
 * control plane and two data planes (three apps, each its own store, the data planes syncing from
 * the control plane) take concurrent requests under a rate limit of N, and exactly N pass, counted
 * on the control plane; an MCP tool-call rate limit holds the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { gwClient } from '../mcp/mcp-fixtures.js';
import { until } from './gw-processes.js';
import { adminPost, saveUpstreamProvider } from './control-plane-fixture.js';

const N = 4;
const SENT = 12;

for (const engine of storeEngines()) {
  describe(`rate limits across a control plane and two data planes (${engine.name})`, () => {
    let cp: TestApp;
    const dps: TestApp[] = [];
    let fake: FakeOpenAi;
    let mcp: FakeMcpServer;
    let key: string;
    const post = adminPost(() => cp);

    before(async () => {
      fake = await startFakeOpenAi();
      mcp = await startFakeMcpServer();
      const env = { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' };
      cp = await startTestApp({ engine, env });
      await saveUpstreamProvider(post, fake.url);
      key = String((await post('/v1/api-keys/workspace/service', { name: 'edge', workspace_id: cp.boot.workspaceId, scopes: ['completions.write', 'mcp.invoke'] })).key);
      const integration = await post('/v1/mcp-integrations', { name: 'Limited Tools', url: mcp.url, transport: 'http', auth_type: 'none', global_workspace_access: true });
      await post('/v1/mcp-servers', { name: 'limited-tools', slug: 'limited-tools', mcp_integration_id: integration.id });
      await post('/v2/policies/rate-limits', { name: 'llm', conditions: [{ key: 'metadata.test', value: 'rate' }], type: 'requests', unit: 'day', value: N });
      await post('/v2/policies/rate-limits', { name: 'tools', target: 'mcp_tools', type: 'requests', unit: 'day', value: N });
      for (const name of ['edge-one', 'edge-two']) {
        const deployment = await post('/v1/deployments', { name });
        dps.push(await startTestApp({ engine, env: { ...env, GW_CONTROL_PLANE_URL: cp.url, GW_DEPLOYMENT_KEY: String(deployment.deployment_key), GW_SYNC_INTERVAL_MS: '200' } }));
      }
      for (const dp of dps) {
        await until('the snapshot on the data plane', async () => ((await dp.services.limitPolicies.of(cp.boot.organisationId)).rate.length === 2 && (await dp.services.db('api_keys').count({ n: '*' }).first())) || undefined);
      }
    });
    after(async () => {
      for (const dp of dps) await dp.close();
      await cp?.close();
      await fake?.close();
      await mcp?.close();
    });

    test(`a rate limit of ${N} requests admits exactly ${N} across both data planes`, async () => {
      const upstreamBefore = fake.requests.length;
      const statuses = (
        await Promise.all(
          Array.from({ length: SENT }, (_, i) =>
            dps[i % 2]!.http
              .post('/v1/chat/completions')
              .set({ 'x-gw-api-key': key, 'x-gw-metadata': JSON.stringify({ test: 'rate' }) })
              .send({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
          ),
        )
      ).map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 200).length, N, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, SENT - N, statuses.join(','));
      assert.equal(fake.requests.length - upstreamBefore, N);
    });

    test(`an MCP tool-call rate limit of ${N} admits exactly ${N} calls across both data planes`, async () => {
      const clients = await Promise.all(dps.map(async (dp) => (await gwClient(dp.url, 'limited-tools', { 'x-gw-api-key': key })).client));
      try {
        const calls = mcp.toolCalls.length;
        const results = await Promise.all(Array.from({ length: SENT }, (_, i) => clients[i % 2]!.callTool({ name: 'echo', arguments: { text: `call ${i}` } }).then((result) => !result.isError, () => false)));
        assert.equal(results.filter(Boolean).length, N, results.join(','));
        assert.equal(mcp.toolCalls.length - calls, N, 'refused calls never reached the upstream');
      } finally {
        for (const client of clients) await client.close();
      }
    });
  });
}
