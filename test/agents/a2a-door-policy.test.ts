/**
 * What the A2A door refuses and records, against a real SDK-built agent on loopback: no key, no
 * `agents.invoke`, another workspace's agent, a skill the integration does not offer, an `agents`
 * rate limit, guardrail denies on the way in and out (streams included), an unsafe push-notification
 * URL, bad JSON-RPC; and the log rows and analytics of every call.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertEndpointRolledUp } from '../logs/rollup-check.js';
import { PUBLIC_URL, registerAgent, testClient, workspaceKey } from './a2a-fixtures.js';

const containsNone = (words: string[]) => [{ id: 'default.contains', parameters: { words, operator: 'none' } }];
const send = (text: string, metadata?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: randomUUID(),
  method: 'message/send',
  params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] }, ...(metadata ? { metadata } : {}) },
});

for (const engine of fullEngines()) {
  describe(`the A2A door's policy (${engine.name})`, () => {
    let app: TestApp;
    let agent: FakeA2aAgent;
    let key: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const post = (slug: string, body: unknown, headers: Record<string, string> = { 'x-gw-api-key': key }) => app.http.post(`/a2a/${slug}/`).set(headers).send(body as object);

    before(async () => {
      agent = await startFakeA2aAgent('1.0');
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
      for (const [slug, words, deny] of [
        ['no-classified', ['classified'], true],
        ['watch-words', ['monitored'], false],
        ['no-leaks', ['leak'], true],
      ] as const) {
        const created = await app.http.post('/v1/guardrails').set(admin()).send({ name: slug, slug, checks: containsNone([...words]), actions: { deny } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      const other = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Other team', slug: 'other-team' });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      await registerAgent(app, agent, 'open', { allowed_skills: ['echo'] });
      await registerAgent(app, agent, 'private', { workspace_ids: ['other-team'] });
      await registerAgent(app, agent, 'limited');
      await registerAgent(app, agent, 'guarded', { input_guardrails: ['no-classified', 'watch-words'], output_guardrails: ['no-leaks'] });
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await agent.close();
    });

    test('no key is 401, a key without agents.invoke is 403, for the card and the calls', async () => {
      assert.equal((await app.http.get('/a2a/open/.well-known/agent-card.json')).status, 401);
      const anonymous = await post('open', send('hi'), {});
      assert.equal(anonymous.status, 401);
      // The door answers in its own shape, even before it reads the request.
      assert.deepEqual([anonymous.body.jsonrpc, anonymous.body.id, anonymous.body.error.code, anonymous.body.error.data.status], ['2.0', null, -32000, 401]);
      const unscoped = await workspaceKey(app, ['completions.write']);
      const card = await app.http.get('/a2a/open/.well-known/agent-card.json').set({ 'x-gw-api-key': unscoped });
      assert.equal(card.status, 403);
      assert.match(card.body.error.message, /agents\.invoke/);
      const unscopedCall = await post('open', send('hi'), { 'x-gw-api-key': unscoped });
      assert.equal(unscopedCall.status, 403);
      assert.match(unscopedCall.body.error.message, /agents\.invoke/);
    });

    test("another workspace's agent is not found for this workspace's key, and works for that workspace's", async () => {
      const seen = agent.requests.length;
      assert.equal((await app.http.get('/a2a/private/.well-known/agent-card.json').set({ 'x-gw-api-key': key })).status, 404);
      const refused = await post('private', send('hi'));
      assert.equal(refused.status, 404);
      assert.equal(refused.body.error.code, -32000);
      assert.equal(refused.body.error.data.code, 'not_found');
      assert.equal(agent.requests.length, seen);
      const otherKey = await workspaceKey(app, ['agents.invoke'], 'other-team');
      const client = await testClient('0.3', app, 'private', { 'x-gw-api-key': otherKey });
      assert.deepEqual((await client.send('from the other team')).texts, ['echo from the other team']);
    });

    test('a skill the integration does not offer is refused before the agent sees it', async () => {
      const seen = agent.requests.length;
      const request = send('hi', { skill: 'secret' });
      const refused = await post('open', request);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, -32602);
      assert.match(refused.body.error.message, /Skill secret is not offered/);
      assert.equal(refused.body.id, request.id);
      assert.equal(agent.requests.length, seen);
      const allowed = await post('open', send('hi', { skill: 'echo' }));
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
      assert.equal(allowed.body.result.status.state, 'completed');
      // An update reaches the door at once (its cached integration is dropped on the write).
      const widen = await app.http.put('/v2/agent-integrations/open').set(admin()).send({ allowed_skills: ['echo', 'secret'] });
      assert.equal(widen.status, 200);
      assert.equal((await post('open', send('hi', { skill: 'secret' }))).status, 200);
      assert.equal((await app.http.put('/v2/agent-integrations/open').set(admin()).send({ allowed_skills: ['echo'] })).status, 200);
      assert.equal((await post('open', send('hi', { skill: 'secret' }))).status, 400);
    });

    test('an agents rate limit admits its count, then answers 429 with a JSON-RPC error', async () => {
      const created = await app.http
        .post('/v2/policies/rate-limits')
        .set(admin())
        .send({ name: 'one call', target: 'agents', type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.a2a_agent', value: 'limited' }], group_by: [{ key: 'api_key' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((policy) => policy.id === created.body.id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const first = send('first');
      assert.equal((await post('limited', first)).status, 200);
      const seen = agent.requests.length;
      const second = send('second');
      const limited = await post('limited', second);
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.id, second.id);
      assert.equal(limited.body.error.code, -32029);
      assert.equal(limited.body.error.data.type, 'rate_limit_error');
      assert.equal(agent.requests.length, seen);
      // Other agents are not counted by that policy.
      assert.equal((await post('open', send('still fine'))).status, 200);
    });

    test('guardrails: a deny on the way in never reaches the agent; a monitor only records; a deny on the way out replaces the answer and ends a stream', async () => {
      const seen = agent.requests.length;
      const denied = await post('guarded', send('the classified plans'));
      assert.equal(denied.status, 446, JSON.stringify(denied.body));
      assert.equal(denied.body.error.code, -32046);
      assert.match(denied.body.error.message, /Blocked by guardrail no-classified/);
      assert.equal(denied.body.error.data.type, 'guardrail_error');
      assert.equal(agent.requests.length, seen);

      const monitored = await post('guarded', send('monitored words'));
      assert.equal(monitored.status, 200, JSON.stringify(monitored.body));
      assert.deepEqual(monitored.body.result.artifacts[0].parts, [{ kind: 'text', text: 'echo monitored words' }]);

      const leaked = await post('guarded', send('a leak'));
      assert.equal(leaked.status, 446);
      assert.match(leaked.body.error.message, /Blocked by guardrail no-leaks \(agent's answer\)/);
      assert.doesNotMatch(JSON.stringify(leaked.body), /echo a leak/);

      const client = await testClient('1.0', app, 'guarded', { 'x-gw-api-key': key });
      const events: string[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of client.stream('another leak')) events.push(event.kind);
        })(),
        /Blocked by guardrail no-leaks/,
      );
      assert.deepEqual(events, ['task']);
    });

    test('a push-notification URL to a private address is refused; bad JSON-RPC gets JSON-RPC errors', async () => {
      const seen = agent.requests.length;
      const push = await post('open', { jsonrpc: '2.0', id: 7, method: 'tasks/pushNotificationConfig/set', params: { taskId: 't1', pushNotificationConfig: { url: 'http://169.254.169.254/hook' } } });
      assert.equal(push.status, 400, JSON.stringify(push.body));
      assert.equal(push.body.id, 7);
      assert.equal(push.body.error.code, -32602);
      assert.equal(push.body.error.data.code, 'push_url_refused');
      const inline = send('with a webhook');
      (inline.params as Record<string, unknown>).configuration = { pushNotificationConfig: { url: 'http://10.1.2.3/hook' } };
      assert.equal((await post('open', inline)).status, 400);
      assert.equal(agent.requests.length, seen);

      const notJson = await app.http.post('/a2a/open/').set({ 'x-gw-api-key': key, 'content-type': 'application/json' }).send('{"jsonrpc": "2.0", "method":');
      assert.equal(notJson.status, 400);
      assert.equal(notJson.body.error.code, -32700);
      const notRpc = await post('open', { hello: 'world' });
      assert.equal(notRpc.status, 400);
      assert.equal(notRpc.body.error.code, -32600);
      const future = await post('open', send('hi'), { 'x-gw-api-key': key, 'a2a-version': '2.0' });
      assert.equal(future.status, 400);
      assert.equal(future.body.error.code, -32009);
      assert.match(future.body.error.message, /A2A version 2\.0 is not supported/);
      const badParams = await post('open', { jsonrpc: '2.0', id: 'x', method: 'message/send', params: [1, 2] });
      assert.equal(badParams.status, 400);
      assert.equal(badParams.body.error.code, -32602);
      assert.equal(badParams.body.id, 'x');
    });

    test('every call is a log row (agent, skill, method, status, task state) and counted by agent in analytics', async () => {
      const client = await testClient('0.3', app, 'open', { 'x-gw-api-key': key });
      const answer = await client.send('logged call', { skill: 'echo' });
      await app.services.requestLogs.flush();
      await assertEndpointRolledUp(app.services.db, 'a2a', 'A2A calls');
      const logs = await app.http.get('/v1/logs').query({ endpoint: 'a2a', limit: 100 }).set(admin());
      assert.equal(logs.status, 200, JSON.stringify(logs.body));
      const rows = logs.body.data as Array<Record<string, unknown> & { metadata: Record<string, string> }>;
      const row = rows.find((entry) => entry.metadata.a2a_task_id === answer.taskId);
      assert.ok(row, 'the call is logged');
      assert.equal(row.provider, 'a2a:open');
      assert.equal(row.model, 'echo');
      assert.equal(row.status, 200);
      assert.equal(row.metadata.a2a_method, 'SendMessage');
      assert.equal(row.metadata.a2a_skill, 'echo');
      assert.equal(row.metadata.a2a_task_state, 'completed');
      assert.equal(row.metadata.a2a_context_id, answer.contextId);
      assert.equal(row.metadata.a2a_version, '0.3');
      assert.equal(row.metadata.a2a_agent_version, '1.0');
      const statuses = new Set(rows.map((entry) => `${entry.provider} ${entry.status}`));
      for (const expected of ['a2a:limited 429', 'a2a:guarded 446', 'a2a:open 400']) assert.ok(statuses.has(expected), `${expected} in ${[...statuses].join(', ')}`);
      const denied = rows.find((entry) => entry.provider === 'a2a:guarded' && entry.status === 446 && entry.metadata.a2a_task_id === undefined);
      assert.ok(denied);
      const detail = await app.http.get(`/v1/logs/${String(denied.id)}`).set(admin());
      assert.equal(detail.status, 200, JSON.stringify(detail.body));
      assert.ok((detail.body.guardrail_results as Array<{ verdict: boolean }>).some((result) => result.verdict === false));
      assert.equal(detail.body.error.type, 'guardrail_error');

      const now = Date.now();
      const range = { start_time: new Date(now - 3_600_000).toISOString(), end_time: new Date(now + 60_000).toISOString() };
      const byProvider = await app.http.get('/v1/analytics/groups/provider').query({ ...range, endpoint: 'a2a' }).set(admin());
      assert.equal(byProvider.status, 200, JSON.stringify(byProvider.body));
      const groups = Object.fromEntries(byProvider.body.data.map((group: { key: string; requests: number }) => [group.key, group.requests]));
      assert.equal(groups['a2a:open'], rows.filter((entry) => entry.provider === 'a2a:open').length);
    });
  });
}
