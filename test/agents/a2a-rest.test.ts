/**
 * The A2A door's HTTP+JSON (REST) binding with real parties: the official SDK's REST client (1.x
 * line, A2A 1.0; the 0.3 line's is in a2a-rest-v03.test.ts) through gw to SDK-built agents of both
 * generations, which offer JSON-RPC only, so gw bridges: card, send, stream (events as the agent
 * sends them), get, cancel, push configs; refusals in the binding's error shape; the log rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import type { TestApp } from '../helpers/test-app.js';
import { assertAgentOwnCredential, assertFullStream, assertStepsArriveBeforeTheEnd, commonRefusals, dropStreamMidTask, guardrailDenials, oneCallThenLimited, pushConfigRoundTrip, resubscribeThenCancel, sendThenGet } from '../helpers/a2a-scenarios.js';
import { a2aRows, gwFetch, registerRefusingAgents, startDoorWithAgents, v1RestClient, type DoorWithAgents } from './a2a-fixtures.js';

const VERSIONS = ['1.0', '0.3'] as const;

const restClient = (app: TestApp, slug: string, headers: Record<string, string>) => v1RestClient(slug, gwFetch(app, headers));

for (const engine of fullEngines()) {
  describe(`the A2A door's HTTP+JSON binding (${engine.name})`, () => {
    let door: DoorWithAgents;
    let app: TestApp;
    let key: string;
    let agents: DoorWithAgents['agents'];
    const slugOf = (version: string) => `rest-${version.replace('.', '')}`;

    before(async () => {
      door = await startDoorWithAgents(engine, slugOf, { extra: { allowed_skills: ['echo'] } });
      ({ app, key, agents } = door);
      await registerRefusingAgents(app, agents, 'rest', '');
    });
    after(() => door.close());

    for (const agentVersion of VERSIONS) {
      const slug = slugOf(agentVersion);
      const label = `a REST client and a ${agentVersion} JSON-RPC agent`;

      test(`${label}: send, get and the agent's own credential`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        const agent = agents.get(agentVersion)!;
        const seenBefore = agent.requests.length;
        const { answer, fetched } = await sendThenGet(client, 'hello rest', { skill: 'echo' });
        assert.equal(fetched.contextId, answer.contextId);
        assertAgentOwnCredential(agent.requests.slice(seenBefore), key);
      });

      test(`${label}: stream events arrive as the agent sends them`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        await assertStepsArriveBeforeTheEnd(client, agents.get(agentVersion)!);
        await assertFullStream(client, 'streamed rest');
      });

      test(`${label}: cancel and resubscribe follow a working task`, async () => {
        const client = await restClient(app, slug, { 'x-gw-api-key': key });
        await resubscribeThenCancel(client, await dropStreamMidTask(client));
      });

      test(`${label}: push-notification configs are set, read, listed and deleted`, async () => {
        const configs = await pushConfigRoundTrip(await restClient(app, slug, { 'x-gw-api-key': key }));
        assert.deepEqual(configs.got, configs.expected);
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
      const cases = await commonRefusals(app, key, {
        send: (slug, headers, body = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) => app.http.post(`/a2a/${slug}/message:send`).set(headers).send(body as object),
        unknownRoute: (slug) => app.http.post(`/a2a/${slug}/tasks/t1:pause`).set({ 'x-gw-api-key': key }),
        secretSkillBody: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, metadata: { skill: 'secret' } },
        slug: 'rest-10',
        privateSlug: 'rest-private',
        names: { 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 400: 'INVALID_ARGUMENT' },
      });
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
      const call = (text: string) => app.http.post('/a2a/rest-limited/message:send').set({ 'x-gw-api-key': key }).send(message(text));
      const limited = await oneCallThenLimited(app, 'rest-limited', agents.get('0.3')!, call, 200);
      assert.equal(limited.body.error.status, 'RESOURCE_EXHAUSTED');
      assert.equal(limited.body.error.details[0].metadata.type, 'rate_limit_error');
    });

    test('guardrails deny in the binding shape: a message in (446), an answer out, and a streamed event (an error event ends the stream)', async () => {
      const { denied, out, streamed } = await guardrailDenials(
        agents.get('1.0')!,
        (text) => app.http.post('/a2a/rest-guarded/message:send').set({ 'x-gw-api-key': key }).send(message(text)),
        (text) => app.http.post('/a2a/rest-guarded/message:stream').set({ 'x-gw-api-key': key, accept: 'text/event-stream' }).send(message(text)),
      );
      assert.equal(denied.body.error.status, 'PERMISSION_DENIED');
      assert.match(denied.body.error.message, /Blocked by guardrail no-classified \(message to the agent\)/);
      assert.ok(Array.isArray(denied.body.error.hook_results));
      assert.match(out.body.error.message, /agent's answer/);
      const error = streamed.error as { code: number; message: string };
      assert.equal(error.code, 446);
      assert.match(error.message, /no-leaks/);
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
