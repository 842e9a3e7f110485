/**
 * The A2A door's HTTP+JSON (REST) binding with real parties: the official SDK's REST client (1.x
 * line, A2A 1.0; the 0.3 line's is in a2a-rest-v03.test.ts) through gw to SDK-built agents of both
 * generations, which offer JSON-RPC only, so gw bridges: card, send, stream (events as the agent
 * sends them), get, cancel, push configs; refusals in the binding's error shape; the log rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, RestTransportFactory } from '@a2a-js/sdk/client';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { AGENT_TOKEN, gwFetch, PUBLIC_URL, registerAgent, v1TestClient, workspaceKey, type Seen, type TestClient } from './a2a-fixtures.js';

const VERSIONS = ['1.0', '0.3'] as const;

async function restClient(app: TestApp, slug: string, headers: Record<string, string>): Promise<TestClient> {
  const fetchImpl = gwFetch(app, headers);
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new RestTransportFactory({ fetchImpl })], preferredTransports: ['HTTP+JSON'], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
  return v1TestClient(await factory.createFromUrl(`${PUBLIC_URL}/a2a/${slug}/`));
}

async function collect(events: AsyncGenerator<Seen>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** The A2A door's request log rows, read through the documented route after a flush. */
type LogRow = Record<string, unknown> & { metadata: Record<string, string> };

async function a2aRows(app: TestApp): Promise<LogRow[]> {
  await app.services.requestLogs.flush();
  const logs = await app.http.get('/v1/logs').query({ endpoint: 'a2a', limit: 100 }).set({ 'x-gw-api-key': app.adminKey });
  assert.equal(logs.status, 200, JSON.stringify(logs.body));
  return logs.body.data as LogRow[];
}

for (const engine of fullEngines()) {
  describe(`the A2A door's HTTP+JSON binding (${engine.name})`, () => {
    let app: TestApp;
    let key: string;
    const agents = new Map<string, FakeA2aAgent>();
    const slugOf = (version: string) => `rest-${version.replace('.', '')}`;

    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
      for (const version of VERSIONS) {
        const agent = await startFakeA2aAgent(version);
        agents.set(version, agent);
        await registerAgent(app, agent, slugOf(version), { allowed_skills: ['echo'] });
      }
      const other = await app.http.post('/v1/workspaces').set({ 'x-gw-api-key': app.adminKey }).send({ name: 'Other team', slug: 'other-rest' });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      await registerAgent(app, agents.get('1.0')!, 'rest-private', { workspace_ids: ['other-rest'] });
      for (const [slug, word] of [['no-classified', 'classified'], ['no-leaks', 'leak']] as const) {
        const created = await app.http.post('/v1/guardrails').set({ 'x-gw-api-key': app.adminKey }).send({ name: slug, slug, checks: [{ id: 'default.contains', parameters: { words: [word], operator: 'none' } }], actions: { deny: true } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      await registerAgent(app, agents.get('1.0')!, 'rest-guarded', { input_guardrails: ['no-classified'], output_guardrails: ['no-leaks'] });
      await registerAgent(app, agents.get('0.3')!, 'rest-limited');
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      for (const agent of agents.values()) await agent.close();
    });

    for (const agentVersion of VERSIONS) {
      const slug = slugOf(agentVersion);
      const label = `a REST client and a ${agentVersion} JSON-RPC agent`;

      test(`${label}: send, get and the agent's own credential`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        const agent = agents.get(agentVersion)!;
        const seenBefore = agent.requests.length;
        const answer = await client.send('hello rest', { skill: 'echo' });
        assert.equal(answer.kind, 'task');
        assert.equal(answer.state, 'completed');
        assert.deepEqual(answer.texts, ['echo hello rest']);
        const fetched = await client.get(answer.taskId!);
        assert.equal(fetched.taskId, answer.taskId);
        assert.equal(fetched.contextId, answer.contextId);
        assert.equal(fetched.state, 'completed');
        for (const headers of agent.requests.slice(seenBefore)) {
          assert.equal(headers.authorization, `Bearer ${AGENT_TOKEN}`);
          assert.doesNotMatch(JSON.stringify(headers), new RegExp(key));
        }
      });

      test(`${label}: stream events arrive as the agent sends them`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        const seen: Seen[] = [];
        for await (const event of client.stream('steps')) {
          seen.push(event);
          if (event.kind === 'status' && event.state === 'working') break; // the agent waits for release()
        }
        assert.deepEqual(seen.map((event) => event.kind), ['task', 'status']);
        assert.deepEqual(seen[1]!.texts, ['step 1']);
        agents.get(agentVersion)!.release();
        const full = await collect(client.stream('streamed rest'));
        assert.deepEqual(full.map((event) => event.kind), ['task', 'artifact', 'status']);
        assert.deepEqual(full[1]!.texts, ['echo streamed rest']);
        assert.equal(full[2]!.state, 'completed');
      });

      test(`${label}: cancel and resubscribe follow a working task`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        let taskId: string | undefined;
        for await (const event of client.stream('wait')) {
          taskId = event.taskId;
          if (event.kind === 'status' && event.state === 'working') break;
        }
        assert.ok(taskId);
        const resubscribed = client.resubscribe(taskId);
        const first = await resubscribed.next();
        assert.equal(first.done, false);
        const cancelled = await client.cancel(taskId);
        assert.equal(cancelled.taskId, taskId);
        const rest = [first.value as Seen, ...(await collect(resubscribed))];
        assert.equal(rest.at(-1)!.state, 'canceled');
        assert.equal((await client.get(taskId)).state, 'canceled');
      });

      test(`${label}: push-notification configs are set, read, listed and deleted`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        const task = await client.send('a task to watch');
        const hook = 'http://127.0.0.1:9/hook';
        const configs = await client.pushConfigs(task.taskId!, hook);
        assert.deepEqual(configs.got, { taskId: task.taskId, id: 'hook-1', url: hook, token: 'push-token' });
        assert.deepEqual(configs.listed, ['hook-1']);
        assert.deepEqual(configs.afterDelete, []);
      });

      test(`${label}: an unknown task is the agent's TASK_NOT_FOUND, as HTTP 404 in the binding's error shape`, async () => {
        const answer = await app.http.get(`/a2a/${slug}/tasks/no-such-task`).set({ 'x-gw-api-key': key });
        assert.equal(answer.status, 404, JSON.stringify(answer.body));
        assert.equal(answer.body.error.code, 404);
        assert.equal(answer.body.error.status, 'NOT_FOUND');
        assert.equal(answer.body.error.details[0].reason, 'TASK_NOT_FOUND');
        assert.equal(answer.body.error.details[0].domain, 'a2a-protocol.org');
      });
    }

    test('refusals answer in the binding shape: no key 401, no scope 403, another workspace 404, unknown route 404, a disallowed skill 400', async () => {
      const send = (slug: string, headers: Record<string, string>, body: unknown = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) =>
        app.http.post(`/a2a/${slug}/message:send`).set(headers).send(body as object);
      const cases: Array<[string, Awaited<ReturnType<typeof send>>, number, string]> = [];
      cases.push(['no key', await send('rest-10', {}), 401, 'UNAUTHENTICATED']);
      cases.push(['no scope', await send('rest-10', { 'x-gw-api-key': await workspaceKey(app, ['completions.write']) }), 403, 'PERMISSION_DENIED']);
      cases.push(['another workspace', await send('rest-private', { 'x-gw-api-key': key }), 404, 'NOT_FOUND']);
      cases.push(['unknown route', await app.http.post('/a2a/rest-10/tasks/t1:pause').set({ 'x-gw-api-key': key }), 404, 'NOT_FOUND']);
      cases.push(['disallowed skill', await send('rest-10', { 'x-gw-api-key': key }, { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, metadata: { skill: 'secret' } }), 400, 'INVALID_ARGUMENT']);
      for (const [what, answer, status, name] of cases) {
        assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error?.code, status, what);
        assert.equal(answer.body.error.status, name, what);
        assert.equal(answer.body.error.details[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo', what);
        assert.equal(answer.body.jsonrpc, undefined, what);
      }
      assert.equal(cases[4]![1].body.error.details[0].metadata.code, 'a2a_skill_not_allowed');
    });

    const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });

    test('an agents rate limit answers 429 RESOURCE_EXHAUSTED in the binding shape, and the agent is not called', async () => {
      const created = await app.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ name: 'one rest call', target: 'agents', type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.a2a_agent', value: 'rest-limited' }], group_by: [{ key: 'api_key' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((policy) => policy.id === created.body.id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal((await app.http.post('/a2a/rest-limited/message:send').set({ 'x-gw-api-key': key }).send(message('first'))).status, 200);
      const agent = agents.get('0.3')!;
      const seen = agent.requests.length;
      const limited = await app.http.post('/a2a/rest-limited/message:send').set({ 'x-gw-api-key': key }).send(message('second'));
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.error.status, 'RESOURCE_EXHAUSTED');
      assert.equal(limited.body.error.details[0].metadata.type, 'rate_limit_error');
      assert.ok(limited.headers['retry-after']);
      assert.equal(agent.requests.length, seen);
    });

    test('guardrails deny in the binding shape: a message in (446), an answer out, and a streamed event (an error event ends the stream)', async () => {
      const agent = agents.get('1.0')!;
      const seen = agent.requests.length;
      const denied = await app.http.post('/a2a/rest-guarded/message:send').set({ 'x-gw-api-key': key }).send(message('classified plans'));
      assert.equal(denied.status, 446, JSON.stringify(denied.body));
      assert.equal(denied.body.error.status, 'PERMISSION_DENIED');
      assert.match(denied.body.error.message, /Blocked by guardrail no-classified \(message to the agent\)/);
      assert.ok(Array.isArray(denied.body.error.hook_results));
      assert.equal(agent.requests.length, seen);
      const out = await app.http.post('/a2a/rest-guarded/message:send').set({ 'x-gw-api-key': key }).send(message('leak'));
      assert.equal(out.status, 446, JSON.stringify(out.body));
      assert.match(out.body.error.message, /agent's answer/);
      const stream = await app.http.post('/a2a/rest-guarded/message:stream').set({ 'x-gw-api-key': key, accept: 'text/event-stream' }).send(message('leak'));
      assert.equal(stream.status, 200);
      const events = stream.text.trim().split(/\n\n/);
      const last = events.at(-1)!;
      assert.match(last, /^event: error\ndata: /);
      const body = JSON.parse(last.split('data: ')[1]!);
      assert.equal(body.error.code, 446);
      assert.match(body.error.message, /no-leaks/);
      assert.ok(events.slice(0, -1).every((event) => event.startsWith('data: ') && !event.includes('echo leak')));
    });

    test('log rows name the binding, the method, the task state and the trace id', async () => {
      const answer = await app.http.post('/a2a/rest-10/message:send').set({ 'x-gw-api-key': key, 'x-gw-trace-id': 'rest-trace-1' }).send({ message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ text: 'logged' }] }, metadata: { skill: 'echo' } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.task.status.state, 'TASK_STATE_COMPLETED');
      const row = (await a2aRows(app)).find((entry) => entry.metadata.a2a_task_id === answer.body.task.id);
      assert.ok(row, 'the call is logged');
      assert.equal(row.trace_id, 'rest-trace-1');
      assert.equal(row.metadata.a2a_binding, 'rest');
      assert.equal(row.metadata.a2a_method, 'SendMessage');
      assert.equal(row.metadata.a2a_task_state, 'completed');
      assert.equal(row.model, 'echo');
      assert.equal(row.status, 200);
    });
  });
}
