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
import { after, before, describe, test } from 'node:test';
import { ClientFactory as V03Factory, ClientFactoryOptions as V03Options, DefaultAgentCardResolver as V03CardResolver, RestTransportFactory as V03Rest } from 'a2a-sdk-v03/client';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import type { TestApp } from '../helpers/test-app.js';
import { assertAgentOwnCredential, assertFullStream, assertStepsArriveBeforeTheEnd, commonRefusals, dropStreamMidTask, guardrailDenials, oneCallThenLimited, pushConfigRoundTrip, resubscribeThenCancel, sendThenGet } from '../helpers/a2a-scenarios.js';
import { a2aRows, gwFetch, PUBLIC_URL, registerAgent, registerRefusingAgents, startDoorWithAgents, v03TestClient, v1RestClient, type DoorWithAgents, type TestClient } from './a2a-fixtures.js';

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

const protoMessage = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', content: [{ text }] }, configuration: { blocking: true }, ...extra });

for (const engine of fullEngines()) {
  describe(`the A2A door's 0.3 HTTP+JSON transport and 1.0 tenant routes (${engine.name})`, () => {
    let door: DoorWithAgents;
    let app: TestApp;
    let key: string;
    let agents: DoorWithAgents['agents'];
    let tenantAgent: FakeA2aAgent;
    const slugOf = (version: string) => `rest03-${version.replace('.', '')}`;

    before(async () => {
      door = await startDoorWithAgents(engine, slugOf, { extra: { allowed_skills: ['echo'] } });
      ({ app, key, agents } = door);
      await registerRefusingAgents(app, agents, 'rest03', '-03');
      tenantAgent = await startFakeA2aAgent('1.0', 'tenant agent', 'jsonrpc', 'acme');
      await registerAgent(app, tenantAgent, 'rest03-tenant');
    });
    after(async () => {
      await door.close();
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
        const { answer, fetched } = await sendThenGet(client, 'hello rest03', { skill: 'echo' });
        assert.equal(fetched.contextId, answer.contextId);
        assert.deepEqual(paths.slice(-2), ['POST /v1/message:send', `GET /v1/tasks/${answer.taskId}`]);
        assertAgentOwnCredential(agent.requests.slice(seenBefore), key);
      });

      test(`${label}: stream events arrive as the agent sends them`, async () => {
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key });
        await assertStepsArriveBeforeTheEnd(client, agents.get(agentVersion)!);
        await assertFullStream(client, 'streamed rest03');
      });

      test(`${label}: cancel and resubscribe follow a working task`, async () => {
        const paths: string[] = [];
        const client = await v03RestClient(app, slug, { 'x-gw-api-key': key }, paths);
        const taskId = await dropStreamMidTask(client);
        await resubscribeThenCancel(client, taskId);
        assert.ok(paths.includes(`POST /v1/tasks/${taskId}:subscribe`) && paths.includes(`POST /v1/tasks/${taskId}:cancel`), paths.join(', '));
      });

      test(`${label}: push-notification configs are set, read, listed and deleted`, async () => {
        const paths: string[] = [];
        const configs = await pushConfigRoundTrip(await v03RestClient(app, slug, { 'x-gw-api-key': key }, paths));
        assert.deepEqual(configs.set, configs.expected);
        assert.deepEqual(configs.got, configs.expected);
        assert.ok(paths.includes(`DELETE /v1/tasks/${configs.taskId}/pushNotificationConfigs/hook-1`), paths.join(', '));
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
      const cases = await commonRefusals(app, key, {
        send: (slug, headers, body = protoMessage('hi')) => app.http.post(`/a2a/${slug}/v1/message:send`).set(headers).send(body as object),
        unknownRoute: (slug) => app.http.post(`/a2a/${slug}/v1/tasks/t1:pause`).set({ 'x-gw-api-key': key }),
        secretSkillBody: protoMessage('hi', { metadata: { skill: 'secret' } }),
        slug: 'rest03-10',
        privateSlug: 'rest03-private',
        names: { 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 400: 'invalid_request_error' },
      });
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
      const call = (text: string) => app.http.post('/a2a/rest03-limited/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage(text));
      const limited = await oneCallThenLimited(app, 'rest03-limited', agents.get('0.3')!, call, 201);
      assert.equal(limited.body.code, -32029);
      assert.equal(limited.body.data.type, 'rate_limit_error');
    });

    test('guardrails deny: a message in (446), an answer out, and a streamed event (an error event ends the stream)', async () => {
      const { denied, out, streamed } = await guardrailDenials(
        agents.get('1.0')!,
        (text) => app.http.post('/a2a/rest03-guarded/v1/message:send').set({ 'x-gw-api-key': key }).send(protoMessage(text)),
        (text) => app.http.post('/a2a/rest03-guarded/v1/message:stream').set({ 'x-gw-api-key': key, accept: 'text/event-stream' }).send(protoMessage(text)),
      );
      assert.equal(denied.body.code, -32046);
      assert.match(denied.body.message, /Blocked by guardrail no-classified-03 \(message to the agent\)/);
      assert.ok(Array.isArray(denied.body.data.hook_results));
      assert.match(out.body.message, /agent's answer/);
      assert.equal(streamed.code, -32046);
      assert.match(streamed.message as string, /no-leaks-03/);
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
      const client = await v1RestClient('rest03-tenant', recordingFetch(app, { 'x-gw-api-key': key }, paths));
      const answer = await client.send('tenant');
      assert.equal(answer.kind, 'message');
      assert.deepEqual(answer.texts, ['tenant acme']);
      assert.equal(paths.at(-1), 'POST /acme/message:send');
      // Without the prefix the agent gets no tenant: gw relays what the caller named, nothing more.
      const plain = await app.http.post('/a2a/rest03-tenant/message:send').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ message: { messageId: 'm-plain', role: 'ROLE_USER', parts: [{ text: 'tenant' }] } });
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.deepEqual(plain.body.message.parts, [{ text: 'tenant (none)' }]);
      const other = await app.http.post('/a2a/rest03-tenant/globex/message:send').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ message: { messageId: 'm-globex', role: 'ROLE_USER', parts: [{ text: 'tenant' }] } });
      assert.equal(other.status, 200, JSON.stringify(other.body));
      assert.deepEqual(other.body.message.parts, [{ text: 'tenant globex' }]);
      const unknown = await app.http.post('/a2a/rest03-tenant/acme/message:pause').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({});
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error.status, 'NOT_FOUND');
    });
  });
}
