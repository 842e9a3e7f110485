/**
 * A2A 0.3's HTTP+JSON transport inbound, with real parties: the 0.3 SDK line's REST client through
 * gw (`{gateway URL}/v1/...`) to SDK-built JSON-RPC agents of both generations (bridged to 1.0):
 * send, stream (events as the agent sends them), get, cancel, resubscribe, push configs; refusals
 * in 0.3's error shape (the JSON-RPC error object); how a `v1/...` request is told 0.3 from 1.0;
 * the log rows. Then A2A 1.0's tenant-prefixed routes: a 1.x REST client, reading a gateway card
 * whose interfaces carry the agent's tenant, calls `/{tenant}/...` and the agent sees the tenant.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { Role } from '@a2a-js/sdk';
import { ClientFactory as V1Factory, ClientFactoryOptions as V1Options, DefaultAgentCardResolver as V1CardResolver, RestTransportFactory as V1Rest } from '@a2a-js/sdk/client';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { ClientFactory as V03Factory, ClientFactoryOptions as V03Options, DefaultAgentCardResolver as V03CardResolver, RestTransportFactory as V03Rest } from 'a2a-sdk-v03/client';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { AGENT_TOKEN, gwFetch, PUBLIC_URL, registerAgent, v03TestClient, v1TestClient, workspaceKey, type Seen, type TestClient } from './a2a-fixtures.js';

const VERSIONS = ['0.3', '1.0'] as const;

/** fetch through gw that also notes each request's method and path below the agent. */
function recordingFetch(app: TestApp, headers: Record<string, string>, seen: string[]): typeof fetch {
  const inner = gwFetch(app, headers);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    seen.push(`${init?.method ?? 'GET'} ${new URL(url).pathname.replace(/^\/a2a\/[^/]+/, '')}`);
    return inner(input, init);
  }) as typeof fetch;
}

async function v03RestClient(app: TestApp, slug: string, headers: Record<string, string>, seen: string[] = []): Promise<TestClient> {
  const fetchImpl = recordingFetch(app, headers, seen);
  const factory = new V03Factory(V03Options.createFrom(V03Options.default, { transports: [new V03Rest({ fetchImpl })], preferredTransports: ['HTTP+JSON'], cardResolver: new V03CardResolver({ fetchImpl }) }));
  return v03TestClient(await factory.createFromUrl(`${PUBLIC_URL}/a2a/${slug}/`));
}

async function collect(events: AsyncGenerator<Seen>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

type LogRow = Record<string, unknown> & { metadata: Record<string, string> };

async function a2aRows(app: TestApp): Promise<LogRow[]> {
  await app.services.requestLogs.flush();
  const logs = await app.http.get('/v1/logs').query({ endpoint: 'a2a', limit: 100 }).set({ 'x-gw-api-key': app.adminKey });
  assert.equal(logs.status, 200, JSON.stringify(logs.body));
  return logs.body.data as LogRow[];
}

/** A 1.x SDK agent whose card declares the tenant `acme`; it answers with the tenant it was called for. */
async function startTenantAgent(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const started = app.listen(0, '127.0.0.1', () => resolve(started));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: 'tenant agent',
    description: 'Answers with its tenant',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const text = `tenant ${context.context?.tenant ?? '(none)'}`;
      bus.publish(AgentEvent.message({ messageId: randomUUID(), role: Role.ROLE_AGENT, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }], contextId: context.contextId, taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [] }));
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card as unknown as ConstructorParameters<typeof DefaultRequestHandler>[0], new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const protoMessage = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', content: [{ text }] }, configuration: { blocking: true }, ...extra });

for (const engine of fullEngines()) {
  describe(`the A2A door's 0.3 HTTP+JSON transport and 1.0 tenant routes (${engine.name})`, () => {
    let app: TestApp;
    let key: string;
    const agents = new Map<string, FakeA2aAgent>();
    let tenantAgent: Awaited<ReturnType<typeof startTenantAgent>>;
    const slugOf = (version: string) => `rest03-${version.replace('.', '')}`;

    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
      for (const version of VERSIONS) {
        const agent = await startFakeA2aAgent(version);
        agents.set(version, agent);
        await registerAgent(app, agent, slugOf(version), { allowed_skills: ['echo'] });
      }
      const other = await app.http.post('/v1/workspaces').set({ 'x-gw-api-key': app.adminKey }).send({ name: 'Other team', slug: 'other-rest03' });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      await registerAgent(app, agents.get('1.0')!, 'rest03-private', { workspace_ids: ['other-rest03'] });
      for (const [slug, word] of [['no-classified-03', 'classified'], ['no-leaks-03', 'leak']] as const) {
        const created = await app.http.post('/v1/guardrails').set({ 'x-gw-api-key': app.adminKey }).send({ name: slug, slug, checks: [{ id: 'default.contains', parameters: { words: [word], operator: 'none' } }], actions: { deny: true } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      await registerAgent(app, agents.get('1.0')!, 'rest03-guarded', { input_guardrails: ['no-classified-03'], output_guardrails: ['no-leaks-03'] });
      await registerAgent(app, agents.get('0.3')!, 'rest03-limited');
      tenantAgent = await startTenantAgent();
      await registerAgent(app, { url: tenantAgent.url } as FakeA2aAgent, 'rest03-tenant');
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      for (const agent of agents.values()) await agent.close();
      await tenantAgent.close();
    });

    for (const agentVersion of VERSIONS) {
      const slug = slugOf(agentVersion);
      const label = `the 0.3 REST client and a ${agentVersion} JSON-RPC agent`;

      test(`${label}: send and get over v1/ routes, the agent with its own credential`, async () => {
        const paths: string[] = [];
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key }, paths);
        const agent = agents.get(agentVersion)!;
        const seenBefore = agent.requests.length;
        const answer = await client.send('hello rest03', { skill: 'echo' });
        assert.equal(answer.kind, 'task');
        assert.equal(answer.state, 'completed');
        assert.deepEqual(answer.texts, ['echo hello rest03']);
        const fetched = await client.get(answer.taskId!);
        assert.equal(fetched.taskId, answer.taskId);
        assert.equal(fetched.contextId, answer.contextId);
        assert.equal(fetched.state, 'completed');
        assert.deepEqual(paths.slice(-2), ['POST /v1/message:send', `GET /v1/tasks/${answer.taskId}`]);
        for (const headers of agent.requests.slice(seenBefore)) {
          assert.equal(headers.authorization, `Bearer ${AGENT_TOKEN}`);
          assert.doesNotMatch(JSON.stringify(headers), new RegExp(key));
        }
      });

      test(`${label}: stream events arrive as the agent sends them`, async () => {
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key });
        const seen: Seen[] = [];
        for await (const event of client.stream('steps')) {
          seen.push(event);
          if (event.kind === 'status' && event.state === 'working') break; // the agent waits for release()
        }
        assert.deepEqual(seen.map((event) => event.kind), ['task', 'status']);
        assert.deepEqual(seen[1]!.texts, ['step 1']);
        agents.get(agentVersion)!.release();
        const full = await collect(client.stream('streamed rest03'));
        assert.deepEqual(full.map((event) => event.kind), ['task', 'artifact', 'status']);
        assert.deepEqual(full[1]!.texts, ['echo streamed rest03']);
        assert.equal(full[2]!.state, 'completed');
      });

      test(`${label}: cancel and resubscribe follow a working task`, async () => {
        const paths: string[] = [];
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key }, paths);
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
        assert.ok(paths.includes(`POST /v1/tasks/${taskId}:subscribe`) && paths.includes(`POST /v1/tasks/${taskId}:cancel`), paths.join(', '));
      });

      test(`${label}: push-notification configs are set, read, listed and deleted`, async () => {
        const paths: string[] = [];
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key }, paths);
        const task = await client.send('a task to watch');
        const hook = 'http://127.0.0.1:9/hook';
        const configs = await client.pushConfigs(task.taskId!, hook);
        assert.deepEqual(configs.set, { taskId: task.taskId, id: 'hook-1', url: hook, token: 'push-token' });
        assert.deepEqual(configs.got, { taskId: task.taskId, id: 'hook-1', url: hook, token: 'push-token' });
        assert.deepEqual(configs.listed, ['hook-1']);
        assert.deepEqual(configs.afterDelete, []);
        assert.ok(paths.includes(`DELETE /v1/tasks/${task.taskId}/pushNotificationConfigs/hook-1`), paths.join(', '));
      });

      test(`${label}: an unknown task is the agent's TASK_NOT_FOUND, HTTP 404 with the JSON-RPC error object`, async () => {
        const answer = await app.http.get(`/a2a/${slug}/v1/tasks/no-such-task`).set({ 'x-gw-api-key': key });
        assert.equal(answer.status, 404, JSON.stringify(answer.body));
        assert.equal(answer.body.code, -32001);
        assert.equal(typeof answer.body.message, 'string');
        assert.equal(answer.body.error, undefined);
      });
    }

    test('answers are 0.3 proto JSON: content parts, TASK_STATE_ names, 201 for a send, an SSE stream of StreamResponses', async () => {
      const sent = await app.http.post('/a2a/rest03-10/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage('shapes'));
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.equal(sent.headers['a2a-version'], '0.3');
      assert.equal(sent.body.task.status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(sent.body.task.artifacts[0].parts, [{ text: 'echo shapes' }]);
      assert.equal(sent.body.task.kind, undefined);
      assert.deepEqual(sent.body.task.history[0].content, [{ text: 'shapes' }]);
      assert.equal(sent.body.task.history[0].role, 'ROLE_USER');
      const stream = await app.http.post('/a2a/rest03-03/v1/message:stream').set({ 'x-gw-api-key': key, accept: 'text/event-stream' }).send(protoMessage('streamed shapes'));
      assert.equal(stream.status, 200);
      const events = stream.text.trim().split(/\n\n/).map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, Record<string, unknown>>);
      assert.deepEqual(events.map((event) => Object.keys(event)), [['task'], ['artifactUpdate'], ['statusUpdate']]);
      assert.deepEqual((events[2]!.statusUpdate!.status as Record<string, unknown>).state, 'TASK_STATE_COMPLETED');
      assert.equal(events[2]!.statusUpdate!.final, true);
      // v1/card is the authenticated extended card; this agent has none and answers UnsupportedOperation (-32004), a 400 here.
      const card = await app.http.get('/a2a/rest03-03/v1/card').set({ 'x-gw-api-key': key });
      assert.equal(card.status, 400, JSON.stringify(card.body));
      assert.equal(card.body.code, -32004);
    });

    test('a v1/ route is 0.3 without A2A-Version or with 0.x, and a 1.0 route under the tenant v1 with 1.x', async () => {
      const v03 = await app.http.post('/a2a/rest03-10/v1/message:send').set({ 'x-gw-api-key': key, 'a2a-version': '0.3' }).send(protoMessage('as 0.3'));
      assert.equal(v03.status, 201, JSON.stringify(v03.body));
      assert.deepEqual(v03.body.task.artifacts[0].parts, [{ text: 'echo as 0.3' }]);
      const v1 = await app.http
        .post('/a2a/rest03-10/v1/message:send')
        .set({ 'x-gw-api-key': key, 'a2a-version': '1.0' })
        .send({ message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'as 1.0' }] } });
      assert.equal(v1.status, 200, JSON.stringify(v1.body));
      assert.equal(v1.headers['a2a-version'], '1.0');
      assert.deepEqual(v1.body.task.artifacts[0].parts, [{ text: 'echo as 1.0' }]);
      const rows = await a2aRows(app);
      assert.equal(rows.find((entry) => entry.metadata.a2a_task_id === v1.body.task.id)?.metadata.a2a_version, '1.0');
      assert.equal(rows.find((entry) => entry.metadata.a2a_task_id === v03.body.task.id)?.metadata.a2a_version, '0.3');
    });

    test('refusals answer with the JSON-RPC error object: no key 401, no scope 403, another workspace 404, unknown route 404, a disallowed skill 400, a private push URL 400', async () => {
      const send = (slug: string, headers: Record<string, string>, body: unknown = protoMessage('hi')) => app.http.post(`/a2a/${slug}/v1/message:send`).set(headers).send(body as object);
      const cases: Array<[string, Awaited<ReturnType<typeof send>>, number, string]> = [];
      cases.push(['no key', await send('rest03-10', {}), 401, 'authentication_error']);
      cases.push(['no scope', await send('rest03-10', { 'x-gw-api-key': await workspaceKey(app, ['completions.write']) }), 403, 'permission_error']);
      cases.push(['another workspace', await send('rest03-private', { 'x-gw-api-key': key }), 404, 'not_found_error']);
      cases.push(['unknown route', await app.http.post('/a2a/rest03-10/v1/tasks/t1:pause').set({ 'x-gw-api-key': key }), 404, 'not_found_error']);
      cases.push(['disallowed skill', await send('rest03-10', { 'x-gw-api-key': key }, protoMessage('hi', { metadata: { skill: 'secret' } })), 400, 'invalid_request_error']);
      const push = { name: 'tasks/t1/pushNotificationConfigs/p1', pushNotificationConfig: { id: 'p1', url: 'http://169.254.169.254/hook' } };
      cases.push(['private push URL', await app.http.post('/a2a/rest03-03/v1/tasks/t1/pushNotificationConfigs').set({ 'x-gw-api-key': key }).send(push), 400, 'invalid_request_error']);
      for (const [what, answer, status, type] of cases) {
        assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(typeof answer.body.code, 'number', what);
        assert.equal(typeof answer.body.message, 'string', what);
        assert.equal(answer.body.data?.type, type, what);
        assert.equal(answer.body.error, undefined, what);
        assert.equal(answer.body.jsonrpc, undefined, what);
      }
      assert.equal(cases[4]![1].body.data.code, 'a2a_skill_not_allowed');
      assert.equal(cases[5]![1].body.code, -32602);
      assert.equal(cases[5]![1].body.data.code, 'push_url_refused');
      // The SDK's client surfaces a refusal as an error carrying gw's message.
      const client = await v03RestClient(app, 'rest03-guarded', { 'x-gw-api-key': key });
      await assert.rejects(client.send('classified plans'), /-32046.*no-classified-03|no-classified-03.*-32046/);
    });

    test('an agents rate limit answers 429 with the JSON-RPC error object, and the agent is not called', async () => {
      const created = await app.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ name: 'one rest03 call', target: 'agents', type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.a2a_agent', value: 'rest03-limited' }], group_by: [{ key: 'api_key' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((policy) => policy.id === created.body.id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal((await app.http.post('/a2a/rest03-limited/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage('first'))).status, 201);
      const agent = agents.get('0.3')!;
      const seen = agent.requests.length;
      const limited = await app.http.post('/a2a/rest03-limited/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage('second'));
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.code, -32029);
      assert.equal(limited.body.data.type, 'rate_limit_error');
      assert.ok(limited.headers['retry-after']);
      assert.equal(agent.requests.length, seen);
    });

    test('guardrails deny: a message in (446), an answer out, and a streamed event (an error event ends the stream)', async () => {
      const agent = agents.get('1.0')!;
      const seen = agent.requests.length;
      const denied = await app.http.post('/a2a/rest03-guarded/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage('classified plans'));
      assert.equal(denied.status, 446, JSON.stringify(denied.body));
      assert.equal(denied.body.code, -32046);
      assert.match(denied.body.message, /Blocked by guardrail no-classified-03 \(message to the agent\)/);
      assert.ok(Array.isArray(denied.body.data.hook_results));
      assert.equal(agent.requests.length, seen);
      const out = await app.http.post('/a2a/rest03-guarded/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage('leak'));
      assert.equal(out.status, 446, JSON.stringify(out.body));
      assert.match(out.body.message, /agent's answer/);
      const stream = await app.http.post('/a2a/rest03-guarded/v1/message:stream').set({ 'x-gw-api-key': key, accept: 'text/event-stream' }).send(protoMessage('leak'));
      assert.equal(stream.status, 200);
      const events = stream.text.trim().split(/\n\n/);
      const last = events.at(-1)!;
      assert.match(last, /^event: error\ndata: /);
      const body = JSON.parse(last.split('data: ')[1]!);
      assert.equal(body.code, -32046);
      assert.match(body.message, /no-leaks-03/);
      assert.ok(events.slice(0, -1).every((event) => event.startsWith('data: ') && !event.includes('echo leak')));
    });

    test('log rows name the rest binding, 0.3 as the caller version, the agent\'s version and the method', async () => {
      const answer = await app.http.post('/a2a/rest03-10/v1/message:send').set({ 'x-gw-api-key': key, 'x-gw-trace-id': 'rest03-trace-1' }).send(protoMessage('logged', { metadata: { skill: 'echo' } }));
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const row = (await a2aRows(app)).find((entry) => entry.metadata.a2a_task_id === answer.body.task.id);
      assert.ok(row, 'the call is logged');
      assert.equal(row.trace_id, 'rest03-trace-1');
      assert.equal(row.metadata.a2a_binding, 'rest');
      assert.equal(row.metadata.a2a_version, '0.3');
      assert.equal(row.metadata.a2a_agent_version, '1.0');
      assert.equal(row.metadata.a2a_method, 'SendMessage');
      assert.equal(row.metadata.a2a_task_state, 'completed');
      assert.equal(row.model, 'echo');
      assert.equal(row.status, 201);
    });

    test("1.0 tenant routes: the gateway card carries the agent's tenant, the 1.x REST client calls /acme/..., and the agent sees the tenant", async () => {
      const card = await app.http.get('/a2a/rest03-tenant/.well-known/agent-card.json').set({ 'x-gw-api-key': key });
      assert.equal(card.status, 200, JSON.stringify(card.body));
      const tenants = card.body.supportedInterfaces.map((entry: { protocolBinding: string; protocolVersion: string; tenant?: string }) => `${entry.protocolBinding} ${entry.protocolVersion} ${entry.tenant ?? '-'}`);
      assert.deepEqual(tenants, ['JSONRPC 1.0 acme', 'JSONRPC 0.3 -', 'HTTP+JSON 1.0 acme', 'HTTP+JSON 0.3 -']);
      const paths: string[] = [];
      const fetchImpl = recordingFetch(app, { 'x-gw-api-key': key }, paths);
      const factory = new V1Factory(V1Options.createFrom(V1Options.default, { transports: [new V1Rest({ fetchImpl })], preferredTransports: ['HTTP+JSON'], cardResolver: new V1CardResolver({ fetchImpl }) }));
      const client = v1TestClient(await factory.createFromUrl(`${PUBLIC_URL}/a2a/rest03-tenant/`));
      const answer = await client.send('who am I for');
      assert.equal(answer.kind, 'message');
      assert.deepEqual(answer.texts, ['tenant acme']);
      assert.equal(paths.at(-1), 'POST /acme/message:send');
      // Without the prefix the agent gets no tenant: gw relays what the caller named, nothing more.
      const plain = await app.http.post('/a2a/rest03-tenant/message:send').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ message: { messageId: 'm-plain', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.deepEqual(plain.body.message.parts, [{ text: 'tenant (none)' }]);
      const other = await app.http.post('/a2a/rest03-tenant/globex/message:send').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ message: { messageId: 'm-globex', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
      assert.equal(other.status, 200, JSON.stringify(other.body));
      assert.deepEqual(other.body.message.parts, [{ text: 'tenant globex' }]);
      const unknown = await app.http.post('/a2a/rest03-tenant/acme/message:pause').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({});
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error.status, 'NOT_FOUND');
    });
  });
}
