/**
 * Prompts, partials, MCP servers and A2A agents saved on a control plane serve on its data plane
 * (two apps, each its own store, the data plane's sync driven by hand): a prompt completion by
 * label with a partial, an MCP tools/call through the gateway, and an agent call through the A2A
 * door. The MCP header secret and the agent's token travel sealed for the data plane only and
 * reach the upstreams from the data plane's own store; a prompt deleted on the control plane is
 * gone from the data plane at the next poll.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DataPlaneSync } from '../../gateway/deployment/data-plane.js';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { gwClient } from '../mcp/mcp-fixtures.js';
import { AGENT_TOKEN, PUBLIC_URL, registerAgent, testClient } from '../agents/a2a-fixtures.js';
import { adminPost, saveUpstreamProvider } from './control-plane-fixture.js';

const MCP_HEADER_SECRET = 'mcp-upstream-header-secret-0123456789';

for (const engine of storeEngines()) {
  describe(`prompts, MCP servers and agents on a data plane (${engine.name})`, () => {
    let cp: TestApp;
    let dp: TestApp;
    let fake: FakeOpenAi;
    let mcp: FakeMcpServer;
    let agent: FakeA2aAgent;
    let sync: DataPlaneSync;
    let key: string;
    const admin = () => ({ 'x-gw-api-key': cp.adminKey });
    const post = adminPost(() => cp);

    before(async () => {
      fake = await startFakeOpenAi();
      mcp = await startFakeMcpServer({ authorize: (headers) => headers['x-upstream-key'] === MCP_HEADER_SECRET });
      agent = await startFakeA2aAgent('1.0');
      const env = { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL };
      cp = await startTestApp({ engine, env });
      const deployment = await post('/v1/deployments', { name: 'edge' });
      dp = await startTestApp({ engine, env: { ...env, GW_CONTROL_PLANE_URL: 'http://127.0.0.1:1', GW_DEPLOYMENT_KEY: String(deployment.deployment_key), GW_SYNC_INTERVAL_MS: '3600000' } });
      sync = new DataPlaneSync({
        controlPlaneUrl: cp.url,
        deploymentKey: String(deployment.deployment_key),
        intervalMs: 60_000,
        db: dp.services.db,
        secrets: dp.services.secrets,
        bus: dp.services.bus,
        logger: dp.services.logger,
        now: Date.now,
      });
      await saveUpstreamProvider(post, fake.url);
      key = String((await post('/v1/api-keys/workspace/service', { name: 'edge', workspace_id: cp.boot.workspaceId, scopes: ['completions.write', 'prompts.read', 'mcp.invoke', 'agents.invoke'] })).key);
      assert.equal(await sync.pull(), 'applied');
    });
    after(async () => {
      await dp?.close();
      await cp?.close();
      await Promise.all([fake?.close(), mcp?.close(), agent?.close()]);
    });

    test('a prompt completion by label, with a partial, runs on the data plane', async () => {
      await post('/v1/prompts/partials', { name: 'dp-sign', string: '-- {{team}}' });
      const prompt = await post('/v1/prompts', { name: 'dp-greeting', virtual_key: '@upstream', model: 'gpt-4o-mini', string: [{ role: 'user', content: 'Hi {{name}} {{>dp-sign}}' }] });
      const versions = await cp.http.get(`/v1/prompts/${prompt.id}/versions`).set(admin());
      assert.equal((await cp.http.put(`/v1/prompts/${prompt.id}/versions/${versions.body.data[0].id}`).set(admin()).send({ label_id: 'production' })).status, 200);
      await cp.http.put(`/v1/prompts/${prompt.id}`).set(admin()).send({ patch: true, string: [{ role: 'user', content: 'Version two {{name}}' }] });
      const complete = () => dp.http.post(`/v1/prompts/${prompt.id}@production/completions`).set({ 'x-gw-api-key': key }).send({ variables: { name: 'Ann', team: 'Edge' } });

      assert.equal((await complete()).status, 404, 'unknown before the sync');
      assert.equal(await sync.pull(), 'applied');
      const answer = await complete();
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(fake.requests.at(-1)!.body.messages, [{ role: 'user', content: 'Hi Ann -- Edge' }], 'the labelled version, its partial rendered');

      assert.equal((await cp.http.delete(`/v1/prompts/${prompt.id}`).set(admin())).status, 200);
      assert.equal(await sync.pull(), 'applied');
      assert.equal((await complete()).status, 404, 'a prompt deleted on the control plane is gone at the next poll');
    });

    test('an MCP tools/call through the data plane reaches the upstream with the header secret it was saved with', async () => {
      const integration = await post('/v1/mcp-integrations', { name: 'DP Tools', url: mcp.url, transport: 'http', auth_type: 'headers', configurations: { custom_headers: { 'x-upstream-key': MCP_HEADER_SECRET } }, global_workspace_access: true });
      await post('/v1/mcp-servers', { name: 'dp-tools', slug: 'dp-tools', mcp_integration_id: integration.id });
      assert.equal(await sync.pull(), 'applied');
      const stored = (await dp.services.db('mcp_integrations').where({ id: integration.id }).first()) as { secrets: string };
      assert.ok(dp.services.secrets.open(stored.secrets).includes(MCP_HEADER_SECRET), 'sealed under the data plane key');
      assert.throws(() => cp.services.secrets.open(stored.secrets), 'and not the control plane one');

      const { client } = await gwClient(dp.url, 'dp-tools', { 'x-gw-api-key': key });
      try {
        const calls = mcp.toolCalls.length;
        const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
        assert.deepEqual(result.content, [{ type: 'text', text: '5' }]);
        assert.deepEqual(mcp.toolCalls.slice(calls), [{ name: 'add', args: { a: 2, b: 3 } }]);
      } finally {
        await client.close();
      }
    });

    test('an agent call through the A2A door of the data plane reaches the agent with its saved token', async () => {
      await registerAgent(cp, agent, 'dp-agent');
      assert.equal(await sync.pull(), 'applied');
      const seen = agent.requests.length;
      const client = await testClient('1.0', dp, 'dp-agent', { 'x-gw-api-key': key });
      const answer = await client.send('from the edge', { skill: 'echo' });
      assert.equal(answer.state, 'completed');
      assert.deepEqual(answer.texts, ['echo from the edge']);
      const received = agent.requests.slice(seen);
      assert.ok(received.length >= 1);
      assert.ok(received.every((headers) => headers.authorization === `Bearer ${AGENT_TOKEN}`));
    });
  });
}
