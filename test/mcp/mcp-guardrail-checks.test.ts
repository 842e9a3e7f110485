/**
 * The existing check types on MCP tool calls: regex, PII and JSON schema, on the arguments
 * (beforeToolCall) and on the result (afterToolCall), as deny and as monitor guardrails, through
 * gw with the MCP SDK's client. One upstream serves two gw servers: `args` carries the
 * beforeToolCall mappings, `results` the afterToolCall ones.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, gwClient, workspaceKey } from './mcp-fixtures.js';

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');

type GuardrailResult = { slug: string; verdict: boolean; deny: boolean };
type Log = { status: number; model: string; trace_id: string; guardrail_results: GuardrailResult[] | null };

/** slug -> checks, deny, server, tools, stage */
const GUARDRAILS = [
  ['args-schema', [{ id: 'default.jsonSchema', parameters: { schema: { type: 'object', properties: { a: { type: 'number', maximum: 100 } }, required: ['a', 'b'] } } }], true, 'args', ['add'], 'beforeToolCall'],
  ['args-regex', [{ id: 'default.regexMatch', parameters: { rule: 'drop\\s+table', flags: 'i', not: true } }], true, 'args', ['echo'], 'beforeToolCall'],
  ['args-pii', [{ id: 'default.pii', parameters: { categories: ['email'] } }], false, 'args', ['echo'], 'beforeToolCall'],
  ['result-pii', [{ id: 'default.pii', parameters: { categories: ['card'] } }], true, 'results', ['echo'], 'afterToolCall'],
  ['result-regex', [{ id: 'default.regexMatch', parameters: { rule: '^\\d{1,3}$' } }], true, 'results', ['add'], 'afterToolCall'],
  ['result-schema', [{ id: 'default.jsonSchema', parameters: { schema: { type: 'object', required: ['ok'] } } }], false, 'results', ['echo'], 'afterToolCall'],
] as const;

for (const engine of fullEngines()) {
  describe(`MCP guardrails with regex, PII and JSON schema checks (${engine.name})`, () => {
    let app: TestApp;
    let upstream: FakeMcpServer;
    let args: Client;
    let results: Client;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      upstream = await startFakeMcpServer({ name: 'checked' });
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      await addMcpServer(app, { url: upstream.url, slug: 'args' });
      await addMcpServer(app, { url: upstream.url, slug: 'results' });
      for (const [slug, checks, deny, server, tools, runOn] of GUARDRAILS) {
        const created = await app.http.post('/v1/guardrails').set(admin()).send({ name: slug, slug, checks, actions: { deny } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const mapped = await app.http.put(`/v2/guardrails/${slug}/mcp-servers`).set(admin()).send({ mcp_servers: { [server]: { capability_ids: tools, run_on: runOn } } });
        assert.equal(mapped.status, 200, JSON.stringify(mapped.body));
      }
      const key = await workspaceKey(app);
      args = (await gwClient(app.url, 'args', { 'x-gw-api-key': key, 'x-gw-trace-id': 'args' })).client;
      results = (await gwClient(app.url, 'results', { 'x-gw-api-key': key, 'x-gw-trace-id': 'results' })).client;
    });
    after(async () => {
      await args.close();
      await results.close();
      await app.close();
      await upstream.close();
    });

    /** The logged tool calls of one server, newest first, with their guardrail results. */
    async function logsOf(server: string): Promise<Log[]> {
      await app.services.requestLogs.flush();
      const list = await app.http.get('/v1/logs').query({ endpoint: 'mcp', trace_id: server, limit: 100 }).set(admin());
      return Promise.all((list.body.data as Array<{ id: string }>).map(async (row) => (await app.http.get(`/v1/logs/${row.id}`).set(admin())).body as Log));
    }
    const resultOf = (log: Log, slug: string) => log.guardrail_results?.find((result) => result.slug === slug);
    const pick = (result: GuardrailResult | undefined) => result && { verdict: result.verdict, deny: result.deny };

    test('beforeToolCall: a JSON schema and a regex deny on the arguments; PII in monitor mode only logs', async () => {
      const calls = upstream.toolCalls.length;
      const tooBig = await args.callTool({ name: 'add', arguments: { a: 500, b: 1 } });
      assert.equal(tooBig.isError, true);
      assert.match(textOf(tooBig), /Blocked by guardrail args-schema \(beforeToolCall\)/);
      const injected = await args.callTool({ name: 'echo', arguments: { text: 'please DROP  TABLE users' } });
      assert.equal(injected.isError, true);
      assert.match(textOf(injected), /Blocked by guardrail args-regex \(beforeToolCall\)/);
      assert.equal(upstream.toolCalls.length, calls, 'denied calls never reach the MCP server');

      assert.equal(textOf(await args.callTool({ name: 'add', arguments: { a: 50, b: 1 } })), '51');
      assert.equal(textOf(await args.callTool({ name: 'echo', arguments: { text: 'write to ann@corp.example' } })), 'write to ann@corp.example');
      assert.equal(upstream.toolCalls.length, calls + 2);

      const logs = await logsOf('args');
      const byText = (status: number, model: string) => logs.filter((log) => log.status === status && log.model === model);
      assert.equal(byText(446, 'add').length, 1);
      assert.equal(resultOf(byText(446, 'add')[0]!, 'args-schema')?.verdict, false);
      assert.equal(resultOf(byText(446, 'echo')[0]!, 'args-regex')?.verdict, false);
      const passed = byText(200, 'echo')[0]!;
      assert.deepEqual(pick(resultOf(passed, 'args-pii')), { verdict: false, deny: false }, 'PII found, logged, not blocked');
      assert.equal(resultOf(passed, 'args-regex')?.verdict, true);
      assert.equal(resultOf(byText(200, 'add')[0]!, 'args-schema')?.verdict, true);
    });

    test('afterToolCall: PII and a regex deny on the result; a JSON schema in monitor mode only logs', async () => {
      const calls = upstream.toolCalls.length;
      const card = await results.callTool({ name: 'echo', arguments: { text: 'card 4111 1111 1111 1111' } });
      assert.equal(card.isError, true);
      assert.match(textOf(card), /Blocked by guardrail result-pii \(afterToolCall\)/);
      assert.doesNotMatch(textOf(card), /4111/, 'the blocked result is not passed on');
      const big = await results.callTool({ name: 'add', arguments: { a: 600, b: 500 } });
      assert.equal(big.isError, true);
      assert.match(textOf(big), /Blocked by guardrail result-regex \(afterToolCall\)/);
      assert.equal(upstream.toolCalls.length, calls + 2, 'the calls ran; their results were judged');

      assert.equal(textOf(await results.callTool({ name: 'add', arguments: { a: 2, b: 2 } })), '4');
      assert.equal(textOf(await results.callTool({ name: 'echo', arguments: { text: 'not json at all' } })), 'not json at all');

      const logs = await logsOf('results');
      const blocked = logs.filter((log) => log.status === 446);
      assert.equal(blocked.length, 2);
      assert.ok(blocked.some((log) => resultOf(log, 'result-pii')?.verdict === false));
      assert.ok(blocked.some((log) => resultOf(log, 'result-regex')?.verdict === false));
      const plain = logs.find((log) => log.status === 200 && log.model === 'echo')!;
      assert.deepEqual(pick(resultOf(plain, 'result-schema')), { verdict: false, deny: false }, 'schema failed, logged, not blocked');
      assert.equal(resultOf(plain, 'result-pii')?.verdict, true);
    });
  });
}
