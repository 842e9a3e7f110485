/**
 * The A2A door's scenarios that every binding's tests play the same way, with what differs (the
 * client, the binding's routes, its error shape) passed in. Each asserts what all its callers
 * assert; a caller adds what only its binding shows. The agents are those of fake-a2a-agents.ts.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { Response } from 'supertest';
import { AGENT_TOKEN, workspaceKey, type PushSeen, type Seen, type TestClient } from '../agents/a2a-fixtures.js';
import type { FakeA2aAgent } from './fake-a2a-agents.js';
import type { TestApp } from './test-app.js';

async function collect(events: AsyncGenerator<Seen>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Streams `text` up to the task's first `working` status, then drops the stream (the task works on). */
async function streamUntilWorking(client: TestClient, text: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of client.stream(text)) {
    seen.push(event);
    if (event.kind === 'status' && event.state === 'working') break;
  }
  return seen;
}

/** Sends `text`, which the agent echoes in a completed task, and gets that task back. */
export async function sendThenGet(client: TestClient, text: string, metadata?: Record<string, unknown>): Promise<{ answer: Seen; fetched: Seen }> {
  const answer = await client.send(text, metadata);
  assert.equal(answer.kind, 'task');
  assert.equal(answer.state, 'completed');
  assert.deepEqual(answer.texts, [`echo ${text}`]);
  const fetched = await client.get(answer.taskId!);
  assert.equal(fetched.taskId, answer.taskId);
  assert.equal(fetched.state, 'completed');
  return { answer, fetched };
}

/** Every request the agent received carried its own credential; with `gwKey`, none carried that key anywhere. */
export function assertAgentOwnCredential(received: IncomingHttpHeaders[], gwKey?: string): void {
  for (const headers of received) {
    assert.equal(headers.authorization, `Bearer ${AGENT_TOKEN}`);
    if (gwKey !== undefined) assert.doesNotMatch(JSON.stringify(headers), new RegExp(gwKey));
  }
}

/** The agent holds a `steps` task after "step 1" until release(): those first events must come through before it goes on. */
export async function assertStepsArriveBeforeTheEnd(client: TestClient, agent: FakeA2aAgent): Promise<void> {
  const seen = await streamUntilWorking(client, 'steps');
  assert.deepEqual(seen.map((event) => event.kind), ['task', 'status']);
  assert.deepEqual(seen[1]!.texts, ['step 1']);
  agent.release();
}

/** A whole stream for `text`: the task, its echoed artifact, its completion. */
export async function assertFullStream(client: TestClient, text: string): Promise<Seen[]> {
  const seen = await collect(client.stream(text));
  assert.deepEqual(seen.map((event) => event.kind), ['task', 'artifact', 'status']);
  assert.deepEqual(seen[1]!.texts, [`echo ${text}`]);
  assert.equal(seen[2]!.state, 'completed');
  return seen;
}

/** Starts a task that works until cancelled and drops its stream once it works; the task's id. */
export async function dropStreamMidTask(client: TestClient): Promise<string> {
  const taskId = (await streamUntilWorking(client, 'wait')).at(-1)?.taskId;
  assert.ok(taskId);
  return taskId;
}

/** Resubscribes to the working task, cancels it: the resubscribed stream ends canceled, and so does a get. */
export async function resubscribeThenCancel(client: TestClient, taskId: string): Promise<void> {
  const resubscribed = client.resubscribe(taskId);
  const first = await resubscribed.next();
  assert.equal(first.done, false);
  const cancelled = await client.cancel(taskId);
  assert.equal(cancelled.taskId, taskId);
  const rest = [first.value as Seen, ...(await collect(resubscribed))];
  assert.equal(rest.at(-1)!.state, 'canceled');
  assert.equal((await client.get(taskId)).state, 'canceled');
}

/** Sets a push config on a new task, reads, lists, deletes and lists again: the list had it, then not. */
export async function pushConfigRoundTrip(client: TestClient): Promise<{ taskId: string; hook: string; set: PushSeen; got: PushSeen; expected: PushSeen }> {
  const task = await client.send('a task to watch');
  const hook = 'http://127.0.0.1:9/hook';
  const configs = await client.pushConfigs(task.taskId!, hook);
  assert.deepEqual(configs.listed, ['hook-1']);
  assert.deepEqual(configs.afterDelete, []);
  return { taskId: task.taskId!, hook, set: configs.set, got: configs.got, expected: { taskId: task.taskId!, id: 'hook-1', url: hook, token: 'push-token' } };
}

type Call = (text: string) => Promise<Response>;

/**
 * An agents rate limit of one call a day on `slug`, per key: the first `call` answers `okStatus`,
 * the second 429 with Retry-After and never reaches `agent`. The refusal, for its binding's shape.
 */
export async function oneCallThenLimited(app: TestApp, slug: string, agent: FakeA2aAgent, call: Call, okStatus: number): Promise<Response> {
  const created = await app.http
    .post('/v2/policies/rate-limits')
    .set({ 'x-gw-api-key': app.adminKey })
    .send({ name: `one ${slug} call`, target: 'agents', type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.a2a_agent', value: slug }], group_by: [{ key: 'api_key' }] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((policy) => policy.id === created.body.id); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal((await call('first')).status, okStatus);
  const seen = agent.requests.length;
  const limited = await call('second');
  assert.equal(limited.status, 429, JSON.stringify(limited.body));
  assert.ok(limited.headers['retry-after']);
  assert.equal(agent.requests.length, seen);
  return limited;
}

/**
 * An agent guarded by a deny-`classified` input guardrail and a deny-`leak` output one: a message
 * in is refused (446) before the agent is called, an answer out is refused (446), and a stream's
 * leaking event becomes an error event that ends it, nothing leaked before it. The three refusals'
 * bodies (the last one the error event's data), for the binding's shape.
 */
export async function guardrailDenials(agent: FakeA2aAgent, send: Call, stream: Call): Promise<{ denied: Response; out: Response; streamed: Record<string, unknown> }> {
  const seen = agent.requests.length;
  const denied = await send('classified plans');
  assert.equal(denied.status, 446, JSON.stringify(denied.body));
  assert.equal(agent.requests.length, seen);
  const out = await send('leak');
  assert.equal(out.status, 446, JSON.stringify(out.body));
  const streamedAnswer = await stream('leak');
  assert.equal(streamedAnswer.status, 200);
  const events = streamedAnswer.text.trim().split(/\n\n/);
  const last = events.at(-1)!;
  assert.match(last, /^event: error\ndata: /);
  assert.ok(events.slice(0, -1).every((event) => event.startsWith('data: ') && !event.includes('echo leak')));
  return { denied, out, streamed: JSON.parse(last.split('data: ')[1]!) as Record<string, unknown> };
}

export type Refusal = [what: string, answer: Response, status: number, name: string];

/** How a binding is asked for the refusals every binding answers, and the names it gives them. */
export interface RefusalRoutes {
  send(slug: string, headers: Record<string, string>, body?: unknown): Promise<Response>;
  /** A route the binding does not have, on `slug`. */
  unknownRoute(slug: string): Promise<Response>;
  /** A send body naming the skill `secret`, which the integration does not allow. */
  secretSkillBody: unknown;
  slug: string;
  /** Registered only for another workspace. */
  privateSlug: string;
  /** The binding's names for 401, 403, 404 and 400. */
  names: { 401: string; 403: string; 404: string; 400: string };
}

/** No key 401, no scope 403, another workspace's agent 404, an unknown route 404, a disallowed skill 400: the answers, for the binding's shape. */
export async function commonRefusals(app: TestApp, key: string, routes: RefusalRoutes): Promise<Refusal[]> {
  const { send, names } = routes;
  return [
    ['no key', await send(routes.slug, {}), 401, names[401]],
    ['no scope', await send(routes.slug, { 'x-gw-api-key': await workspaceKey(app, ['completions.write']) }), 403, names[403]],
    ['another workspace', await send(routes.privateSlug, { 'x-gw-api-key': key }), 404, names[404]],
    ['unknown route', await routes.unknownRoute(routes.slug), 404, names[404]],
    ['disallowed skill', await send(routes.slug, { 'x-gw-api-key': key }, routes.secretSkillBody), 400, names[400]],
  ];
}
