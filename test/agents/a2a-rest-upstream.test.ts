/**
 * Agents that offer only A2A's HTTP+JSON (REST) binding: SDK-built agents of both lines serving
 * only the SDK's REST transport, called by gw over that binding, whatever the caller speaks
 * (the 1.x and 0.3 SDKs' JSON-RPC clients, the 1.x SDK's REST client): send, stream (each event as
 * the agent sends it), get, cancel, resubscribe after a dropped stream, push configs, the agent's
 * errors mapped to the caller's binding, and the log row naming the binding used to the agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentEndpoint } from '../../gateway/a2a/agent-endpoint.js';
import { fullEngines } from '../helpers/engines.js';
import { startHandWrittenAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertAgentOwnCredential, assertFullStream, assertStepsArriveBeforeTheEnd, dropStreamMidTask, pushConfigRoundTrip, resubscribeThenCancel, sendThenGet } from '../helpers/a2a-scenarios.js';
import { a2aRows, gwFetch, saveIntegration, startDoorWithAgents, testClient, v1RestClient, workspaceKey, type DoorWithAgents, type TestClient } from './a2a-fixtures.js';

const VERSIONS = ['1.0', '0.3'] as const;
const CALLERS = ['1.0 JSON-RPC', '0.3 JSON-RPC', '1.0 REST'] as const;
type Caller = (typeof CALLERS)[number];

async function clientFor(caller: Caller, app: TestApp, slug: string, headers: Record<string, string>): Promise<TestClient> {
  if (caller === '1.0 JSON-RPC') return testClient('1.0', app, slug, headers);
  if (caller === '0.3 JSON-RPC') return testClient('0.3', app, slug, headers);
  return v1RestClient(slug, gwFetch(app, headers));
}

for (const engine of fullEngines()) {
  describe(`agents offering only HTTP+JSON (${engine.name})`, () => {
    let door: DoorWithAgents;
    let app: TestApp;
    let key: string;
    let agents: DoorWithAgents['agents'];
    const slugOf = (version: string) => `rest-only-${version.replace('.', '')}`;

    before(async () => {
      door = await startDoorWithAgents(engine, slugOf, { binding: 'rest', name: (version) => `${version} REST agent` });
      ({ app, key, agents } = door);
    });
    after(() => door.close());

    for (const agentVersion of VERSIONS) {
      const slug = slugOf(agentVersion);
      const routePrefix = agentVersion === '1.0' ? '/rest' : '/rest/v1';

      for (const caller of CALLERS) {
        const label = `a ${caller} caller and a ${agentVersion} REST-only agent`;

        test(`${label}: send and get go to the agent's REST routes with its credential`, async () => {
          const client = await clientFor(caller, app, slug, { 'x-gw-api-key': key });
          const agent = agents.get(agentVersion)!;
          const seenBefore = agent.routes.length;
          const { answer } = await sendThenGet(client, 'hello binding');
          const routes = agent.routes.slice(seenBefore);
          assert.deepEqual(routes, [`POST ${routePrefix}/message:send`, `GET ${routePrefix}/tasks/${answer.taskId}`]);
          assertAgentOwnCredential(agent.requests.slice(-2));
        });

        test(`${label}: stream events arrive as the agent sends them`, async () => {
          const client = await clientFor(caller, app, slug, { 'x-gw-api-key': key });
          await assertStepsArriveBeforeTheEnd(client, agents.get(agentVersion)!);
          await assertFullStream(client, 'streamed binding');
        });

        test(`${label}: after a dropped stream, resubscribe follows the task and cancel ends it`, async () => {
          const client = await clientFor(caller, app, slug, { 'x-gw-api-key': key });
          await resubscribeThenCancel(client, await dropStreamMidTask(client));
        });

        test(`${label}: push-notification configs are set, read, listed and deleted`, async () => {
          const configs = await pushConfigRoundTrip(await clientFor(caller, app, slug, { 'x-gw-api-key': key }));
          assert.equal(configs.got.id, 'hook-1');
          assert.equal(configs.got.url, configs.hook);
          assert.equal(configs.got.taskId, configs.taskId);
        });
      }

      test(`a ${agentVersion} REST-only agent's errors: HTTP status and body become JSON-RPC codes, and the REST binding's errors again`, async () => {
        const headers = { 'x-gw-api-key': key, 'a2a-version': '1.0' };
        const rpc = (method: string, params: Record<string, unknown>) => app.http.post(`/a2a/${slug}`).set(headers).send({ jsonrpc: '2.0', id: 7, method, params });
        const missing = await rpc('GetTask', { id: 'no-such-task' });
        assert.equal(missing.body.id, 7);
        assert.equal(missing.body.error?.code, -32001, JSON.stringify(missing.body));
        const missing03 = await app.http.post(`/a2a/${slug}`).set({ 'x-gw-api-key': key }).send({ jsonrpc: '2.0', id: 'x', method: 'tasks/get', params: { id: 'no-such-task' } });
        assert.equal(missing03.body.error?.code, -32001, JSON.stringify(missing03.body));
        assert.ok(!Array.isArray(missing03.body.error.data), '1.0 details mean nothing to a 0.3 caller');
        const rest = await app.http.get(`/a2a/${slug}/tasks/no-such-task`).set({ 'x-gw-api-key': key });
        assert.equal(rest.status, 404, JSON.stringify(rest.body));
        assert.equal(rest.body.error.details[0].reason, 'TASK_NOT_FOUND');
        const done = await rpc('SendMessage', { message: { messageId: `m-${agentVersion}`, role: 'ROLE_USER', parts: [{ text: 'done' }] } });
        const taskId = done.body.result.task.id as string;
        const notCancelable = await rpc('CancelTask', { id: taskId });
        assert.equal(notCancelable.body.error?.code, -32002, JSON.stringify(notCancelable.body));
        const restCancel = await app.http.post(`/a2a/${slug}/tasks/${taskId}:cancel`).set({ 'x-gw-api-key': key }).send({});
        assert.equal(restCancel.status, 400, JSON.stringify(restCancel.body));
        assert.equal(restCancel.body.error.details[0].reason, 'TASK_NOT_CANCELABLE');
      });

      test(`a ${agentVersion} REST-only agent: the log row names the binding used to the agent`, async () => {
        const answer = await app.http
          .post(`/a2a/${slug}`)
          .set({ 'x-gw-api-key': key, 'a2a-version': '1.0' })
          .send({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `log-${agentVersion}`, role: 'ROLE_USER', parts: [{ text: 'logged' }] } } });
        const taskId = answer.body.result.task.id as string;
        const row = (await a2aRows(app)).find((entry) => entry.metadata.a2a_task_id === taskId);
        assert.ok(row, 'the call is logged');
        assert.equal(row.metadata.a2a_agent_binding, 'rest');
        assert.equal(row.metadata.a2a_agent_version, agentVersion);
        assert.equal(row.metadata.a2a_task_state, 'completed');
        assert.equal(row.status, 200);
      });
    }

    test('ListTasks reaches a 1.0 REST agent as GET /tasks and is refused for a 0.3 one, whose binding has no such route', async () => {
      const list = (slug: string) => app.http.post(`/a2a/${slug}`).set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ jsonrpc: '2.0', id: 2, method: 'ListTasks', params: { pageSize: 5 } });
      const listed = await list(slugOf('1.0'));
      assert.ok(Array.isArray(listed.body.result?.tasks), JSON.stringify(listed.body));
      assert.equal(agents.get('1.0')!.routes.at(-1), 'GET /rest/tasks?pageSize=5');
      const refused = await list(slugOf('0.3'));
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, -32004);
    });
  });
}

/** A hand-written 1.0 agent offering only HTTP+JSON that misbehaves on purpose: a huge answer, a stream that goes silent, a bare 503. */
function startRoughRestAgent(maxBytes: number): ReturnType<typeof startHandWrittenAgent> {
  const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
  return startHandWrittenAgent((req, body, res) => {
    const text = req.method === 'POST' ? (JSON.parse(body || '{}') as { message?: { parts?: Array<{ text?: string }> } }).message?.parts?.[0]?.text : undefined;
    if (req.url === '/rest/message:send' && text === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ task: { ...task, metadata: { padding: 'x'.repeat(maxBytes * 2) } } }));
    } else if (req.url === '/rest/message:stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ task })}\n\n`); // then silence
    } else {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('busy');
    }
  });
}

describe('an HTTP+JSON-only agent within the same bounds', () => {
  const MAX_BYTES = 4096;
  let app: TestApp;
  let agent: Awaited<ReturnType<typeof startRoughRestAgent>>;
  let key: string;

  before(async () => {
    agent = await startRoughRestAgent(MAX_BYTES);
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_MAX_UPSTREAM_ANSWER_BYTES: String(MAX_BYTES), REQUEST_TIMEOUT: '500' } });
    const card = { name: 'rough', version: '1', supportedInterfaces: [{ url: `${agent.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }], capabilities: { streaming: true }, skills: [] };
    await saveIntegration(app, 'rough-rest', agent.url, card);
    key = await workspaceKey(app);
  });
  after(async () => {
    await app.close();
    await agent.close();
  });

  const call = (method: string, text: string) =>
    app.http
      .post('/a2a/rough-rest/')
      .set({ 'x-gw-api-key': key, 'a2a-version': '1.0' })
      .send({ jsonrpc: '2.0', id: 9, method, params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } } });

  test('an answer over GW_MAX_UPSTREAM_ANSWER_BYTES is refused', async () => {
    const answer = await call('SendMessage', 'huge');
    assert.equal(answer.status, 502, JSON.stringify(answer.body));
    assert.equal(answer.body.error.data.code, 'upstream_answer_too_large');
  });

  test('a stream silent for longer than REQUEST_TIMEOUT ends with an error event after what arrived', async () => {
    const answer = await call('SendStreamingMessage', 'quiet');
    assert.equal(answer.status, 200);
    const seen = answer.text.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => JSON.parse(block.slice(6)) as { result?: { task?: { id: string } }; error?: { data: { type: string } } });
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.result?.task?.id, 't-1');
    assert.equal(seen[1]!.error?.data.type, 'timeout_error');
  });

  test('a bare HTTP status without an error body is an internal error naming the status', async () => {
    const answer = await app.http.post('/a2a/rough-rest/').set({ 'x-gw-api-key': key, 'a2a-version': '1.0' }).send({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 't-1' } });
    assert.equal(answer.body.error.code, -32603, JSON.stringify(answer.body));
    assert.match(answer.body.error.message, /HTTP 503/);
  });
});

test('the binding is chosen from the card: JSON-RPC whenever offered, else HTTP+JSON (1.0 before 0.3), else the integration URL', () => {
  const v1 = (...interfaces: Array<Record<string, string>>) => ({ name: 'a', supportedInterfaces: interfaces });
  assert.deepEqual(agentEndpoint(v1({ url: 'https://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }, { url: 'https://a/rpc03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }), 'https://a'), { url: 'https://a/rpc03', version: '0.3', binding: 'jsonrpc' });
  assert.deepEqual(agentEndpoint(v1({ url: 'https://a/v03', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' }, { url: 'https://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't1' }), 'https://a'), { url: 'https://a/rest', version: '1.0', binding: 'rest', tenant: 't1' });
  assert.deepEqual(agentEndpoint({ name: 'a', url: 'https://a/rest', preferredTransport: 'HTTP+JSON', additionalInterfaces: [{ url: 'https://a/rpc', transport: 'JSONRPC' }] }, 'https://a'), { url: 'https://a/rpc', version: '0.3', binding: 'jsonrpc' });
  assert.deepEqual(agentEndpoint({ name: 'a', url: 'https://a/rest', preferredTransport: 'HTTP+JSON' }, 'https://a'), { url: 'https://a/rest', version: '0.3', binding: 'rest' });
  assert.deepEqual(agentEndpoint({ name: 'a', url: 'https://a/grpc', preferredTransport: 'GRPC' }, 'https://a'), { url: 'https://a', version: '0.3', binding: 'jsonrpc' });
});
