import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, gwClient, workspaceKey } from './mcp-fixtures.js';

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
const containsNone = (words: string[]) => [{ id: 'default.contains', parameters: { words, operator: 'none' } }];

for (const engine of fullEngines()) {
  describe(`MCP guardrails (${engine.name})`, () => {
    let app: TestApp;
    let upstream: FakeMcpServer;
    let client: Client;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const sync = (guardrail: string, body: unknown) => app.http.put(`/v2/guardrails/${guardrail}/mcp-servers`).set(admin()).send(body as object);

    before(async () => {
      upstream = await startFakeMcpServer({ name: 'guarded' });
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      await addMcpServer(app, { url: upstream.url, slug: 'guarded' });
      for (const [slug, checks, deny] of [
        ['block-secret', containsNone(['secret']), true],
        ['watch-words', containsNone(['monitored']), false],
        ['clean-results', containsNone(['forbidden-output']), true],
      ] as const) {
        const created = await app.http.post('/v1/guardrails').set(admin()).send({ name: slug, slug, checks, actions: { deny } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      client = (await gwClient(app.url, 'guarded', { 'x-gw-api-key': await workspaceKey(app) })).client;
    });
    after(async () => {
      await client.close();
      await app.close();
      await upstream.close();
    });

    test('bulk sync answers what changed', async () => {
      const added = await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo'], run_on: 'beforeToolCall' } } });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.deepEqual(added.body, { changed: true, added: 1, updated: 0, removed: 0 });
      assert.deepEqual((await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo'], run_on: 'beforeToolCall' } } })).body, { changed: false, added: 0, updated: 0, removed: 0 });
      assert.deepEqual((await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo', 'add'], run_on: 'beforeToolCall' } } })).body, { changed: true, added: 0, updated: 1, removed: 0 });
      assert.deepEqual((await sync('block-secret', { mcp_servers: {} })).body, { changed: true, added: 0, updated: 0, removed: 1 });
      assert.deepEqual((await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo'], run_on: 'beforeToolCall' } } })).body.added, 1);
      assert.equal((await sync('watch-words', { mcp_servers: { guarded: { capability_ids: [], run_on: 'beforeToolCall' } } })).status, 200);
      const byId = await app.http.get('/v1/mcp-servers/guarded').set(admin());
      assert.equal((await sync('clean-results', { mcp_servers: { [byId.body.id]: { capability_ids: ['echo'], run_on: 'afterToolCall' } } })).body.added, 1);
    });

    test('bulk sync errors: unknown guardrail, server, capability; bad run_on', async () => {
      const noGuardrail = await sync('nope', { mcp_servers: {} });
      assert.equal(noGuardrail.status, 404);
      assert.equal(noGuardrail.body.error.type, 'not_found_error');
      const noServer = await sync('block-secret', { mcp_servers: { nowhere: { capability_ids: [], run_on: 'beforeToolCall' } } });
      assert.equal(noServer.status, 400);
      assert.deepEqual([noServer.body.error.code, noServer.body.error.param], ['unknown_mcp_server', 'mcp_servers.nowhere']);
      const noTool = await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo', 'teleport'], run_on: 'beforeToolCall' } } });
      assert.equal(noTool.status, 400);
      assert.deepEqual([noTool.body.error.code, noTool.body.error.param], ['unknown_capability', 'mcp_servers.guarded.capability_ids[1]']);
      const badRunOn = await sync('block-secret', { mcp_servers: { guarded: { capability_ids: [], run_on: 'sometimes' } } });
      assert.equal(badRunOn.status, 400);
      assert.match(String(badRunOn.body.error.param), /run_on/);
      // A failed sync changed nothing.
      assert.deepEqual((await sync('block-secret', { mcp_servers: { guarded: { capability_ids: ['echo'], run_on: 'beforeToolCall' } } })).body.changed, false);
    });

    test('beforeToolCall deny blocks with a tool error naming the guardrail; the upstream never sees the call', async () => {
      const calls = upstream.toolCalls.length;
      const blocked = await client.callTool({ name: 'echo', arguments: { text: 'my secret plan' } });
      assert.equal(blocked.isError, true);
      assert.match(textOf(blocked), /Blocked by guardrail block-secret \(beforeToolCall\)/);
      assert.equal(upstream.toolCalls.length, calls);
      // Another tool is not mapped: the same words pass.
      assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })), '2');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'all clear' } })), 'all clear');
    });

    test('a monitor guardrail only logs; afterToolCall deny blocks on the result', async () => {
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'monitored words' } })), 'monitored words');
      const calls = upstream.toolCalls.length;
      const blocked = await client.callTool({ name: 'echo', arguments: { text: 'forbidden-output' } });
      assert.equal(upstream.toolCalls.length, calls + 1, 'the call ran; its result was judged');
      assert.equal(blocked.isError, true);
      assert.match(textOf(blocked), /Blocked by guardrail clean-results \(afterToolCall\)/);

      await app.services.requestLogs.flush();
      type Log = { status: number; request_body: { arguments: { text?: string } }; guardrail_results: Array<{ slug: string; verdict: boolean; deny: boolean }> | null };
      const summaries = (await app.http.get('/v1/logs?endpoint=mcp&limit=100').set(admin())).body.data as Array<{ id: string }>;
      // The list leaves bodies and guardrail results out; each log has them.
      const logs = await Promise.all(summaries.map(async (summary) => (await app.http.get(`/v1/logs/${summary.id}`).set(admin())).body as Log));
      const find = (text: string) => logs.find((log) => log.request_body.arguments.text === text)!;
      const monitored = find('monitored words');
      assert.equal(monitored.status, 200);
      assert.ok(monitored.guardrail_results!.some((result) => result.slug === 'watch-words' && result.verdict === false && result.deny === false));
      assert.equal(find('my secret plan').status, 446);
      const after = find('forbidden-output');
      assert.equal(after.status, 446);
      assert.ok(after.guardrail_results!.some((result) => result.slug === 'clean-results' && result.verdict === false));
    });
  });
}
