import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory as V1Factory, ClientFactoryOptions as V1Options, DefaultAgentCardResolver as V1CardResolver, JsonRpcTransportFactory as V1JsonRpc, RestTransportFactory as V1Rest, type Client as V1Client } from '@a2a-js/sdk/client';
import { ClientFactory as V03Factory, ClientFactoryOptions as V03Options, DefaultAgentCardResolver as V03CardResolver, JsonRpcTransportFactory as V03JsonRpc, type Client as V03Client } from 'a2a-sdk-v03/client';
import type { Engine } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** gw's GW_PUBLIC_URL in these tests: the card names it, and the clients' fetch maps it to the test app. */
export const PUBLIC_URL = 'http://gw.test';

export const AGENT_TOKEN = 'agent-own-bearer-token-42';

/** fetch for the SDK clients: gw's public URL mapped to the app, the gw key added to every request. */
export function gwFetch(app: TestApp, headers: Record<string, string>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).replace(PUBLIC_URL, app.url);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  }) as typeof fetch;
}

/** Registers an agent as gw's documented routes do: its card fetched by gw, then the integration saved with it. */
export async function registerAgent(app: TestApp, agent: FakeA2aAgent, slug: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const admin = { 'x-gw-api-key': app.adminKey };
  const auth = { auth_type: 'bearer', auth_config: { token: AGENT_TOKEN } };
  const fetched = await app.http.post('/v2/agent-integrations/fetch-agent-card').set(admin).send({ url: agent.url, ...auth });
  assert.equal(fetched.status, 200, JSON.stringify(fetched.body));
  const created = await app.http.post('/v2/agent-integrations').set(admin).send({ name: slug, slug, url: agent.url, ...auth, agent_card: fetched.body.agent_card, ...extra });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body as Record<string, unknown>;
}

export async function v1Client(app: TestApp, slug: string, headers: Record<string, string>): Promise<V1Client> {
  const fetchImpl = gwFetch(app, headers);
  const factory = new V1Factory(V1Options.createFrom(V1Options.default, { transports: [new V1JsonRpc({ fetchImpl })], cardResolver: new V1CardResolver({ fetchImpl }) }));
  return factory.createFromUrl(`${PUBLIC_URL}/a2a/${slug}/`);
}

export async function v03Client(app: TestApp, slug: string, headers: Record<string, string>): Promise<V03Client> {
  const fetchImpl = gwFetch(app, headers);
  const factory = new V03Factory(V03Options.createFrom(V03Options.default, { transports: [new V03JsonRpc({ fetchImpl })], cardResolver: new V03CardResolver({ fetchImpl }) }));
  return factory.createFromUrl(`${PUBLIC_URL}/a2a/${slug}/`);
}

/** gw with a fake agent of each SDK line registered, and a workspace key that may call them. */
export interface DoorWithAgents {
  app: TestApp;
  agents: Map<'0.3' | '1.0', FakeA2aAgent>;
  key: string;
  close(): Promise<void>;
}

/** Starts gw on `engine` and an agent of each SDK line (`binding`, named `name(version)`), registered as `slugOf(version)` with `extra`. */
export async function startDoorWithAgents(
  engine: Engine,
  slugOf: (version: '0.3' | '1.0') => string,
  options: { extra?: Record<string, unknown>; binding?: 'jsonrpc' | 'rest'; name?: (version: '0.3' | '1.0') => string } = {},
): Promise<DoorWithAgents> {
  const app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
  const agents = new Map<'0.3' | '1.0', FakeA2aAgent>();
  for (const version of ['1.0', '0.3'] as const) {
    const agent = await startFakeA2aAgent(version, options.name?.(version), options.binding);
    agents.set(version, agent);
    await registerAgent(app, agent, slugOf(version), options.extra);
  }
  const close = async () => {
    await app.close();
    for (const agent of agents.values()) await agent.close();
  };
  return { app, agents, key: await workspaceKey(app), close };
}

/**
 * The agents the refusal tests call, `prefix` naming them: `{prefix}-private` (1.0) only for
 * another workspace; `{prefix}-guarded` (1.0) behind guardrails `no-classified{suffix}` (in) and
 * `no-leaks{suffix}` (out); `{prefix}-limited` (0.3), for a rate limit.
 */
export async function registerRefusingAgents(app: TestApp, agents: DoorWithAgents['agents'], prefix: string, guardrailSuffix: string): Promise<void> {
  const admin = { 'x-gw-api-key': app.adminKey };
  const other = await app.http.post('/v1/workspaces').set(admin).send({ name: 'Other team', slug: `other-${prefix}` });
  assert.equal(other.status, 201, JSON.stringify(other.body));
  await registerAgent(app, agents.get('1.0')!, `${prefix}-private`, { workspace_ids: [`other-${prefix}`] });
  for (const [slug, word] of [[`no-classified${guardrailSuffix}`, 'classified'], [`no-leaks${guardrailSuffix}`, 'leak']] as const) {
    const created = await app.http.post('/v1/guardrails').set(admin).send({ name: slug, slug, checks: [{ id: 'default.contains', parameters: { words: [word], operator: 'none' } }], actions: { deny: true } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  await registerAgent(app, agents.get('1.0')!, `${prefix}-guarded`, { input_guardrails: [`no-classified${guardrailSuffix}`], output_guardrails: [`no-leaks${guardrailSuffix}`] });
  await registerAgent(app, agents.get('0.3')!, `${prefix}-limited`);
}

/** The 1.x SDK line's HTTP+JSON (REST) client through gw, as a TestClient; `fetchImpl` maps gw's public URL (gwFetch, or one that also records). */
export async function v1RestClient(slug: string, fetchImpl: typeof fetch): Promise<TestClient> {
  const factory = new V1Factory(V1Options.createFrom(V1Options.default, { transports: [new V1Rest({ fetchImpl })], preferredTransports: ['HTTP+JSON'], cardResolver: new V1CardResolver({ fetchImpl }) }));
  return v1TestClient(await factory.createFromUrl(`${PUBLIC_URL}/a2a/${slug}/`));
}

/** Saves an integration with its card given as is: for hand-written agents that serve no card. */
export async function saveIntegration(app: TestApp, slug: string, url: string, card: Record<string, unknown>): Promise<void> {
  const created = await app.http.post('/v2/agent-integrations').set({ 'x-gw-api-key': app.adminKey }).send({ name: slug, slug, url, agent_card: card });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

/** A row of the A2A door's request log. */
type LogRow = Record<string, unknown> & { metadata: Record<string, string> };

/** The A2A door's request log rows, read through the documented route after a flush. */
export async function a2aRows(app: TestApp): Promise<LogRow[]> {
  await app.services.requestLogs.flush();
  const logs = await app.http.get('/v1/logs').query({ endpoint: 'a2a', limit: 100 }).set({ 'x-gw-api-key': app.adminKey });
  assert.equal(logs.status, 200, JSON.stringify(logs.body));
  return logs.body.data as LogRow[];
}

/** A workspace service key with `scopes`, in `workspace` (default: the default workspace). */
export async function workspaceKey(app: TestApp, scopes = ['agents.invoke'], workspace = 'default'): Promise<string> {
  const created = await app.http.post('/v1/api-keys/workspace/service').set({ 'x-gw-api-key': app.adminKey }).send({ name: `a2a caller ${scopes.join(',')}`, workspace_id: workspace, scopes });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.key as string;
}

/** What a test reads from an answer or event, whichever SDK line read it. */
export interface Seen {
  kind: 'task' | 'message' | 'status' | 'artifact';
  taskId: string | undefined;
  contextId: string | undefined;
  /** In 0.3 words: working, completed, canceled, ... */
  state: string | undefined;
  texts: string[];
}

/** The calls the tests make, over either SDK line's client. */
export interface TestClient {
  send(text: string, metadata?: Record<string, unknown>): Promise<Seen>;
  stream(text: string): AsyncGenerator<Seen>;
  get(taskId: string): Promise<Seen>;
  cancel(taskId: string): Promise<Seen>;
  resubscribe(taskId: string): AsyncGenerator<Seen>;
  /** Sets a push-notification config on the task, reads it back, lists, deletes and lists again. */
  pushConfigs(taskId: string, url: string): Promise<{ set: PushSeen; got: PushSeen; listed: string[]; afterDelete: string[] }>;
}

export interface PushSeen {
  taskId: string;
  id: string;
  url: string;
  token: string | undefined;
}

type V1Task = Awaited<ReturnType<V1Client['getTask']>>;

const v1State = (state: unknown) => (typeof state === 'number' ? (TaskState[state] ?? '').replace('TASK_STATE_', '').toLowerCase().replace(/_/g, '-') : undefined);
const v1Texts = (parts: Array<{ content?: { $case: string; value: unknown } }> = []) => parts.flatMap((part) => (part.content?.$case === 'text' ? [String(part.content.value)] : []));

function fromV1Task(task: V1Task): Seen {
  const texts = (task.artifacts ?? []).flatMap((artifact) => v1Texts(artifact.parts as never));
  return { kind: 'task', taskId: task.id, contextId: task.contextId, state: v1State(task.status?.state), texts };
}

function fromV1Event(event: { payload?: { $case: string; value: unknown } }): Seen {
  const value = event.payload?.value as Record<string, unknown> & { taskId?: string; contextId?: string; parts?: never };
  switch (event.payload?.$case) {
    case 'task':
      return fromV1Task(value as unknown as V1Task);
    case 'statusUpdate': {
      const status = value.status as unknown as { state: number; message?: { parts: never } };
      return { kind: 'status', taskId: value.taskId, contextId: value.contextId, state: v1State(status.state), texts: v1Texts(status.message?.parts) };
    }
    case 'artifactUpdate':
      return { kind: 'artifact', taskId: value.taskId, contextId: value.contextId, state: undefined, texts: v1Texts((value.artifact as unknown as { parts: never }).parts) };
    default:
      return { kind: 'message', taskId: value?.taskId, contextId: value?.contextId, state: undefined, texts: v1Texts(value?.parts) };
  }
}

function v1TestClient(client: V1Client): TestClient {
  const message = (text: string, metadata?: Record<string, unknown>) => ({
    tenant: '',
    configuration: undefined,
    metadata,
    message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: '' }], contextId: '', taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [] },
  });
  return {
    async send(text, metadata) {
      const result = await client.sendMessage(message(text, metadata));
      return 'status' in result ? fromV1Task(result) : fromV1Event({ payload: { $case: 'message', value: result } });
    },
    async *stream(text) {
      for await (const event of client.sendMessageStream(message(text))) yield fromV1Event(event as never);
    },
    get: async (taskId) => fromV1Task(await client.getTask({ tenant: '', id: taskId, historyLength: undefined })),
    cancel: async (taskId) => fromV1Task(await client.cancelTask({ tenant: '', id: taskId, metadata: undefined })),
    async *resubscribe(taskId) {
      for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) yield fromV1Event(event as never);
    },
    async pushConfigs(taskId, url) {
      const seen = (config: { taskId: string; id: string; url: string; token: string }): PushSeen => ({ taskId: config.taskId, id: config.id, url: config.url, token: config.token || undefined });
      const set = seen(await client.createTaskPushNotificationConfig({ tenant: '', taskId, id: 'hook-1', url, token: 'push-token', authentication: undefined }));
      const got = seen(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'hook-1' }));
      const list = async () => (await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs.map((config) => config.id);
      const listed = await list();
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'hook-1' });
      return { set, got, listed, afterDelete: await list() };
    },
  };
}

type V03Event = Record<string, unknown> & { kind: string };
const v03Texts = (parts: unknown) => ((parts as Array<{ kind: string; text?: string }> | undefined) ?? []).flatMap((part) => (part.kind === 'text' ? [part.text ?? ''] : []));

function fromV03(event: V03Event): Seen {
  const status = event.status as { state: string; message?: { parts: unknown } } | undefined;
  switch (event.kind) {
    case 'task':
      return { kind: 'task', taskId: event.id as string, contextId: event.contextId as string, state: status?.state, texts: ((event.artifacts as Array<{ parts: unknown }>) ?? []).flatMap((artifact) => v03Texts(artifact.parts)) };
    case 'status-update':
      return { kind: 'status', taskId: event.taskId as string, contextId: event.contextId as string, state: status?.state, texts: v03Texts(status?.message?.parts) };
    case 'artifact-update':
      return { kind: 'artifact', taskId: event.taskId as string, contextId: event.contextId as string, state: undefined, texts: v03Texts((event.artifact as { parts: unknown }).parts) };
    default:
      return { kind: 'message', taskId: event.taskId as string | undefined, contextId: event.contextId as string | undefined, state: undefined, texts: v03Texts(event.parts) };
  }
}

export function v03TestClient(client: V03Client): TestClient {
  const params = (text: string, metadata?: Record<string, unknown>) => ({ metadata, message: { kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }] } });
  return {
    send: async (text, metadata) => fromV03((await client.sendMessage(params(text, metadata))) as unknown as V03Event),
    async *stream(text) {
      for await (const event of client.sendMessageStream(params(text))) yield fromV03(event as unknown as V03Event);
    },
    get: async (taskId) => fromV03((await client.getTask({ id: taskId })) as unknown as V03Event),
    cancel: async (taskId) => fromV03((await client.cancelTask({ id: taskId })) as unknown as V03Event),
    async *resubscribe(taskId) {
      for await (const event of client.resubscribeTask({ id: taskId })) yield fromV03(event as unknown as V03Event);
    },
    async pushConfigs(taskId, url) {
      type Config = { taskId: string; pushNotificationConfig: { id?: string; url: string; token?: string } };
      const seen = (config: Config): PushSeen => ({ taskId: config.taskId, id: config.pushNotificationConfig.id ?? '', url: config.pushNotificationConfig.url, token: config.pushNotificationConfig.token });
      const set = seen(await client.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { id: 'hook-1', url, token: 'push-token' } }));
      // The 0.3 client's type names only the task id; the wire (and the agent) take the config id too.
      const named = { id: taskId, pushNotificationConfigId: 'hook-1' } as unknown as Parameters<V03Client['getTaskPushNotificationConfig']>[0];
      const got = seen(await client.getTaskPushNotificationConfig(named));
      const list = async () => (await client.listTaskPushNotificationConfig({ id: taskId })).map((config) => config.pushNotificationConfig.id ?? '');
      const listed = await list();
      await client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'hook-1' });
      return { set, got, listed, afterDelete: await list() };
    },
  };
}

/** The SDK line's client for `version`, through gw, as a TestClient. */
export async function testClient(version: '0.3' | '1.0', app: TestApp, slug: string, headers: Record<string, string>): Promise<TestClient> {
  return version === '1.0' ? v1TestClient(await v1Client(app, slug, headers)) : v03TestClient(await v03Client(app, slug, headers));
}
