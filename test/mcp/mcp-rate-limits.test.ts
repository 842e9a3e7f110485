/**
 * `mcp_tools` rate-limit policies on MCP tool calls, exact across instances: three gw instances
 * on one database and one Redis take concurrent tool calls (each through a session opened on that
 * instance) against a limit of N, and exactly N pass. Without GW_TEST_REDIS_URL the same runs on
 * one instance with memory counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Engine } from '../helpers/engines.js';
import { clockFromMinuteStart } from '../helpers/minute-clock.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';
import { addMcpServer, gwClient, workspaceKey } from './mcp-fixtures.js';

const redisUrl = process.env.GW_TEST_REDIS_URL;
const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const setups: Array<{ name: string; instances: number; engine: Engine }> = redisUrl
  ? [{ name: `three instances, ${databaseUrl ? 'postgres' : 'sqlite file'} + redis`, instances: 3, engine: { name: 'shared', databaseUrl, redisUrl } }]
  : [{ name: 'one instance, sqlite + memory (set GW_TEST_REDIS_URL for three instances)', instances: 1, engine: { name: 'sqlite+memory' } }];

const N = 5;
const SENT = 15;

for (const setup of setups) {
  describe(`mcp_tools rate limits (${setup.name})`, () => {
    let cluster: TestCluster | undefined;
    let upstream: FakeMcpServer;
    let apps: TestApp[] = [];
    let key: string;

    before(async () => {
      upstream = await startFakeMcpServer({ name: 'limited' });
      // Per-minute windows: a clock that starts a minute, so none rolls over mid-test.
      cluster = await startTestCluster(setup.instances, { engine: setup.engine, now: clockFromMinuteStart(), env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      apps = cluster.apps;
      await addMcpServer(apps[0]!, { url: upstream.url, slug: 'limited' });
      key = await workspaceKey(apps[0]!);
    });
    after(async () => {
      await cluster?.close();
      await upstream?.close();
    });

    async function policy(name: string, body: Record<string, unknown>): Promise<string> {
      const created = await apps[0]!.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': apps[0]!.adminKey })
        .send({ name, conditions: [{ key: 'metadata.test', value: name }], ...body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as string;
      for (const app of apps) {
        for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((p) => p.id === id); i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      return id;
    }

    /** One SDK client per instance (its session opened there), all sending x-gw-metadata {test: name}. */
    async function clients(name: string, metadata: Record<string, string> = {}, apiKey = key): Promise<Client[]> {
      const headers = { 'x-gw-api-key': apiKey, 'x-gw-metadata': JSON.stringify({ test: name, ...metadata }) };
      return Promise.all(apps.map(async (app) => (await gwClient(app.url, 'limited', headers)).client));
    }

    test(`a limit of ${N} tool calls per day admits exactly ${N}, over every instance`, async () => {
      await policy('tools', { type: 'requests', unit: 'day', value: N, target: 'mcp_tools' });
      const open = await clients('tools');
      const before = upstream.toolCalls.length;
      const outcomes = await Promise.allSettled(
        Array.from({ length: SENT }, (_, i) => open[i % open.length]!.callTool({ name: 'add', arguments: { a: i, b: 0 } })),
      );
      const passed = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      const limited = outcomes.filter((outcome) => outcome.status === 'rejected' && /429|Rate limit/.test(String(outcome.reason))).length;
      assert.equal(passed, N, outcomes.map((o) => o.status).join(','));
      assert.equal(limited, SENT - N);
      assert.equal(upstream.toolCalls.length - before, N, 'refused calls never reached the upstream');
      // Listing is not a tool call: not counted, not refused.
      assert.ok((await open[0]!.listTools()).tools.length > 0);
      await Promise.all(open.map((client) => client.close()));
    });

    /** Sends `count` tool calls spread over the clients at once; answers how many passed and how many were rate limited. */
    async function burst(open: Client[], count: number): Promise<{ passed: number; limited: number }> {
      const outcomes = await Promise.allSettled(Array.from({ length: count }, (_, i) => open[i % open.length]!.callTool({ name: 'add', arguments: { a: i, b: 1 } })));
      return {
        passed: outcomes.filter((outcome) => outcome.status === 'fulfilled').length,
        limited: outcomes.filter((outcome) => outcome.status === 'rejected' && /429|Rate limit/.test(String(outcome.reason))).length,
      };
    }

    test('group_by api_key: each key has its own exact count, over every instance', async () => {
      await policy('per-key', { type: 'requests', unit: 'minute', value: 2, target: 'mcp_tools', group_by: [{ key: 'api_key' }] });
      const other = await workspaceKey(apps[0]!);
      const [first, second] = [await clients('per-key'), await clients('per-key', {}, other)];
      assert.deepEqual(await burst(first!, 6), { passed: 2, limited: 4 });
      assert.deepEqual(await burst(second!, 6), { passed: 2, limited: 4 }, 'the other key counts apart');
      await Promise.all([...first!, ...second!].map((client) => client.close()));
    });

    test('group_by a metadata key: each value (a team, say) has its own count', async () => {
      await policy('per-team', { type: 'requests', unit: 'minute', value: 3, target: 'mcp_tools', group_by: [{ key: 'metadata.team' }] });
      const red = await clients('per-team', { team: 'red' });
      const blue = await clients('per-team', { team: 'blue' });
      assert.deepEqual(await burst(red, 5), { passed: 3, limited: 2 });
      assert.deepEqual(await burst(blue, 5), { passed: 3, limited: 2 });
      assert.deepEqual(await burst(red, 1), { passed: 0, limited: 1 });
      await Promise.all([...red, ...blue].map((client) => client.close()));
    });

    test('over the limit: HTTP 429 with a JSON-RPC error, logged; llm policies do not count tool calls', async () => {
      await policy('one', { type: 'requests', unit: 'minute', value: 1, target: 'mcp_tools' });
      await policy('llm-only', { type: 'requests', unit: 'minute', value: 1 });
      const [client] = await clients('one');
      await client!.callTool({ name: 'echo', arguments: { text: 'first' } });
      const { transport } = await gwClient(apps[0]!.url, 'limited', { 'x-gw-api-key': key, 'x-gw-metadata': JSON.stringify({ test: 'one' }) });
      const refused = await apps[0]!.http
        .post('/limited/mcp')
        .set({ 'x-gw-api-key': key, 'x-gw-metadata': JSON.stringify({ test: 'one' }), 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18', accept: 'application/json, text/event-stream' })
        .send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'second' } } });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.jsonrpc, '2.0');
      assert.equal(refused.body.id, 9);
      assert.equal(refused.body.error.code, -32029);
      assert.match(refused.body.error.message, /Rate limit of 1 requests per minute/);
      // An llm policy matching the same metadata counts model calls only: tool calls under it pass.
      const [llmClient] = await clients('llm-only');
      await llmClient!.callTool({ name: 'echo', arguments: { text: 'a' } });
      await llmClient!.callTool({ name: 'echo', arguments: { text: 'b' } });
      await apps[0]!.services.requestLogs.flush();
      const logs = await apps[0]!.http.get('/v1/logs?endpoint=mcp&status=429&limit=100').set({ 'x-gw-api-key': apps[0]!.adminKey });
      assert.ok(logs.body.data.some((log: { model: string; error: { code: string } }) => log.model === 'echo' && log.error.code === 'rate_limit_exceeded'), JSON.stringify(logs.body));
      await client!.close();
      await llmClient!.close();
    });
  });
}
