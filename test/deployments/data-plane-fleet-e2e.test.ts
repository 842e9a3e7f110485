/**
 * A control plane and two data planes as three processes on loopback (on SQLite, or with
 * GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL each plane on a Postgres database of its own and the
 * control plane's counters on Redis):
 * - a prompt completion, an MCP tools/call and an A2A agent call saved on the control plane serve
 *   on a data plane;
 * - an organisation request budget of N, hit concurrently through both data planes, admits exactly
 *   N (the control plane's counter says N);
 * - with the control plane stopped, a limited request on a data plane is refused (503, fail closed)
 *   while unlimited traffic still serves, and a data plane restarted with an offline allowance of
 *   30% admits exactly 30% of the limit on its own, then refuses again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import type { TestApp } from '../helpers/test-app.js';
import { gwClient } from '../mcp/mcp-fixtures.js';
import { AGENT_TOKEN, PUBLIC_URL, testClient } from '../agents/a2a-fixtures.js';
import { GwProcesses, ownPostgresDatabase, until, type Gw } from './gw-processes.js';

const ADMIN_KEY = 'gw-test-admin-key-fleet-0123456789ab';
const MCP_HEADER_SECRET = 'mcp-fleet-header-secret-0123456789';
/** The shared budget, and how many requests race for it through the two data planes. */
const BUDGET = 6;
const SENT = 16;
/** The outage budget and the offline allowance (percent of each limit) of the restarted data plane. */
const OUTAGE_LIMIT = 10;
const ALLOWANCE_PERCENT = 30;
const OUTAGE_SENT = 6;

describe('a control plane and two data planes (three processes): everything serves, limits hold across planes', () => {
  const processes = new GwProcesses();
  const databases: Array<Awaited<ReturnType<typeof ownPostgresDatabase>>> = [];
  let fake: FakeOpenAi | undefined;
  let mcp: FakeMcpServer | undefined;
  let agent: FakeA2aAgent | undefined;
  after(async () => {
    await processes.close();
    await Promise.all([fake?.close(), mcp?.close(), agent?.close()]);
    for (const database of databases) await database.drop();
  });

  const engine = storeEngines().find((candidate) => candidate.databaseUrl);
  const redisUrl = process.env.GW_TEST_REDIS_URL;
  async function storeEnv(): Promise<Record<string, string>> {
    if (!engine?.databaseUrl) return {};
    const database = await ownPostgresDatabase(engine.databaseUrl);
    databases.push(database);
    return { GW_DATABASE_URL: database.url };
  }

  test('prompts, MCP and agents serve on a data plane; a budget holds across planes; an outage fails closed or within the allowance', async () => {
    fake = await startFakeOpenAi();
    mcp = await startFakeMcpServer({ authorize: (headers) => headers['x-upstream-key'] === MCP_HEADER_SECRET });
    agent = await startFakeA2aAgent('1.0');
    const cpEnv = { GW_ADMIN_API_KEY: ADMIN_KEY, GW_PUBLIC_URL: PUBLIC_URL, ...(await storeEnv()), ...(redisUrl ? { GW_REDIS_URL: redisUrl, GW_REDIS_PREFIX: `gw-fleet-${randomBytes(4).toString('hex')}:` } : {}) };
    const cp = await processes.gw('control-plane', cpEnv);
    await cp.start();
    const admin = { 'x-gw-api-key': ADMIN_KEY, 'content-type': 'application/json' };
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${cp.url}${path}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await response.json()) as Record<string, unknown> & { id: string };
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const post = (path: string, body: unknown) => send('POST', path, body);

    await post('/v1/providers', { name: 'Upstream', slug: 'upstream', ai_provider_id: 'openai', key: 'sk-upstream-fleet-0123456789', configurations: { custom_host: fake.url } });
    const workspaces = (await send('GET', '/v1/workspaces')) as unknown as { data: Array<{ id: string }> };
    const key = String((await post('/v1/api-keys/workspace/service', { name: 'fleet', workspace_id: workspaces.data[0]!.id, scopes: ['completions.write', 'prompts.read', 'mcp.invoke', 'agents.invoke'] })).key);
    const prompt = await post('/v1/prompts', { name: 'fleet-greeting', virtual_key: '@upstream', model: 'gpt-4o-mini', string: [{ role: 'user', content: 'Hi {{name}}' }] });
    const mcpIntegration = await post('/v1/mcp-integrations', { name: 'Fleet Tools', url: mcp.url, transport: 'http', auth_type: 'headers', configurations: { custom_headers: { 'x-upstream-key': MCP_HEADER_SECRET } }, global_workspace_access: true });
    await post('/v1/mcp-servers', { name: 'fleet-tools', slug: 'fleet-tools', mcp_integration_id: mcpIntegration.id });
    const agentAuth = { auth_type: 'bearer', auth_config: { token: AGENT_TOKEN } };
    const card = await post('/v2/agent-integrations/fetch-agent-card', { url: agent.url, ...agentAuth });
    await post('/v2/agent-integrations', { name: 'fleet-agent', slug: 'fleet-agent', url: agent.url, ...agentAuth, agent_card: card.agent_card });
    const budget = await post('/v2/policies/usage-limits', { name: 'shared', conditions: [{ key: 'metadata.test', value: 'shared' }], type: 'requests', credit_limit: BUDGET });
    await post('/v2/policies/usage-limits', { name: 'outage', conditions: [{ key: 'metadata.test', value: 'outage' }], type: 'requests', credit_limit: OUTAGE_LIMIT });

    const dataPlane = async (name: string): Promise<Gw> => {
      const deployment = await post('/v1/deployments', { name });
      const dp = await processes.gw(name, { GW_CONTROL_PLANE_URL: cp.url, GW_DEPLOYMENT_KEY: String(deployment.deployment_key), GW_SYNC_INTERVAL_MS: '300', GW_PUBLIC_URL: PUBLIC_URL, ...(await storeEnv()) });
      await dp.start();
      return dp;
    };
    const dp1 = await dataPlane('edge-one');
    const dp2 = await dataPlane('edge-two');
    const chat = (dp: Gw, test?: string) =>
      fetch(`${dp.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gw-api-key': key, 'content-type': 'application/json', ...(test ? { 'x-gw-metadata': JSON.stringify({ test }) } : {}) },
        body: JSON.stringify({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      });
    for (const dp of [dp1, dp2]) await until('the snapshot on each data plane', async () => (await chat(dp)).ok || undefined);

    // A prompt completion on a data plane.
    const completion = await fetch(`${dp1.url}/v1/prompts/${prompt.id}/completions`, { method: 'POST', headers: { 'x-gw-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ variables: { name: 'Ann' } }) });
    assert.equal(completion.status, 200, await completion.clone().text());
    assert.deepEqual(fake.requests.at(-1)!.body.messages, [{ role: 'user', content: 'Hi Ann' }]);

    // An MCP tools/call on a data plane, with the header secret saved on the control plane.
    const { client } = await gwClient(dp1.url, 'fleet-tools', { 'x-gw-api-key': key });
    try {
      assert.deepEqual((await client.callTool({ name: 'add', arguments: { a: 4, b: 5 } })).content, [{ type: 'text', text: '9' }]);
      assert.deepEqual(mcp.toolCalls.at(-1), { name: 'add', args: { a: 4, b: 5 } });
    } finally {
      await client.close();
    }

    // An agent call through the A2A door of the other data plane, with the agent's saved token.
    const seenByAgent = agent.requests.length;
    const a2a = await testClient('1.0', { url: dp2.url } as TestApp, 'fleet-agent', { 'x-gw-api-key': key });
    const answer = await a2a.send('from the fleet', { skill: 'echo' });
    assert.deepEqual([answer.state, answer.texts], ['completed', ['echo from the fleet']]);
    assert.ok(agent.requests.slice(seenByAgent).every((headers) => headers.authorization === `Bearer ${AGENT_TOKEN}`));

    // One budget, two planes, concurrent requests: exactly BUDGET pass, and the control plane counted them.
    const upstreamBefore = fake.requests.length;
    const statuses = (await Promise.all(Array.from({ length: SENT }, (_, i) => chat(i % 2 ? dp2 : dp1, 'shared')))).map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 200).length, BUDGET, statuses.join(','));
    assert.equal(statuses.filter((status) => status === 429).length, SENT - BUDGET, statuses.join(','));
    assert.equal(fake.requests.length - upstreamBefore, BUDGET, 'refused requests never reached the upstream');
    const entities = (await send('GET', `/v2/policies/usage-limits/${budget.id}/entities`)) as unknown as { data: Array<{ usage: number }> };
    assert.equal(entities.data[0]!.usage, BUDGET, 'the control plane holds the one counter');

    // The control plane stops: a limited request fails closed; traffic no limit covers still serves.
    await cp.stop();
    const closed = await chat(dp1, 'outage');
    assert.equal(closed.status, 503);
    assert.equal(((await closed.json()) as { error: { code: string } }).error.code, 'limits_unavailable');
    assert.equal((await chat(dp1)).status, 200, 'unlimited traffic does not need the control plane');

    // A data plane restarted with an offline allowance admits that share of the limit on its own, then refuses.
    await dp2.stop();
    await dp2.start({ GW_DATA_PLANE_OFFLINE_ALLOWANCE_PERCENT: String(ALLOWANCE_PERCENT) });
    const offline: number[] = [];
    for (let i = 0; i < OUTAGE_SENT; i++) offline.push((await chat(dp2, 'outage')).status);
    const allowance = Math.floor((OUTAGE_LIMIT * ALLOWANCE_PERCENT) / 100);
    assert.deepEqual(offline, [...Array(allowance).fill(200), ...Array(OUTAGE_SENT - allowance).fill(503)]);
    assert.equal((await chat(dp1, 'outage')).status, 503, 'the plane without an allowance still fails closed');
  });
});
