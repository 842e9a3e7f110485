/**
 * Real A2A agents on loopback, built with the official SDK: the 1.x line (A2A 1.0) and the 0.3 line
 * (installed as `a2a-sdk-v03`), each with the same behaviour, chosen by the message text:
 * - anything: a task that answers `echo <text>` as an artifact and completes;
 * - `steps`: a task that reports `working` ("step 1"), then waits for `release()` before its
 *   artifact ("step 2") and completion, so a test can see events arrive before the agent is done;
 * - `wait`: a task that works until it is cancelled;
 * - `tenant` (1.0 only): a message `tenant <the tenant it was called for, or (none)>`.
 * Push-notification configs are stored (set, get, list, delete) but nothing is pushed.
 * Each records the headers of every request it receives. With `binding: 'rest'` the agent serves
 * only the SDK's HTTP+JSON (REST) transport at `{url}/rest`, and its card says so. A 1.0 agent's
 * card can name a tenant on its interface.
 * startHandWrittenAgent is for agents the SDK would not build: ones that misbehave on purpose.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Role, TaskState, type Message as V1Message, type Part as V1Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler as V1Handler, InMemoryPushNotificationStore as V1PushStore, InMemoryTaskStore as V1Store, type AgentExecutor as V1Executor } from '@a2a-js/sdk/server';
import { agentCardHandler as v1CardHandler, jsonRpcHandler as v1JsonRpc, restHandler as v1Rest, UserBuilder as V1Users } from '@a2a-js/sdk/server/express';
import { DefaultRequestHandler as V03Handler, InMemoryPushNotificationStore as V03PushStore, InMemoryTaskStore as V03Store, type AgentExecutor as V03Executor } from 'a2a-sdk-v03/server';
import { agentCardHandler as v03CardHandler, jsonRpcHandler as v03JsonRpc, restHandler as v03Rest, UserBuilder as V03Users } from 'a2a-sdk-v03/server/express';

export interface FakeA2aAgent {
  /** The agent's base URL (its card under /.well-known/agent-card.json). */
  url: string;
  version: '0.3' | '1.0';
  requests: IncomingHttpHeaders[];
  /** Method and path of every request, for the binding tests. */
  routes: string[];
  /** Lets every waiting `steps` task go on. */
  release(): void;
  close(): Promise<void>;
}

export const AGENT_SKILLS = [
  { id: 'echo', name: 'Echo', description: 'Repeats what it is told', tags: ['echo'] },
  { id: 'secret', name: 'Secret', description: 'Not for everyone', tags: ['internal'] },
];

interface Waits {
  gates: Array<() => void>;
  cancels: Map<string, () => void>;
}

const v1Text = (text: string): V1Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
const v1TextOf = (message: V1Message) => message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

function v1Executor(waits: Waits): V1Executor {
  return {
    async execute(context, bus) {
      const { taskId, contextId } = context;
      const text = v1TextOf(context.userMessage);
      if (text === 'tenant') {
        const parts = [v1Text(`tenant ${context.context?.tenant ?? '(none)'}`)];
        bus.publish(AgentEvent.message({ messageId: randomUUID(), role: Role.ROLE_AGENT, parts, contextId, taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [] }));
        bus.finished();
        return;
      }
      const status = (state: TaskState, message?: string) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: message === undefined ? undefined : { messageId: randomUUID(), role: Role.ROLE_AGENT, parts: [v1Text(message)], contextId, taskId, metadata: undefined, extensions: [], referenceTaskIds: [] }, timestamp: undefined },
          metadata: undefined,
        });
      const artifact = (value: string) =>
        AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: randomUUID(), name: 'answer', description: '', parts: [v1Text(value)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined });
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [context.userMessage], metadata: undefined }));
      if (text === 'wait') {
        bus.publish(status(TaskState.TASK_STATE_WORKING, 'waiting'));
        await new Promise<void>((resolve) => waits.cancels.set(taskId, resolve));
        bus.publish(status(TaskState.TASK_STATE_CANCELED));
      } else if (text === 'steps') {
        bus.publish(status(TaskState.TASK_STATE_WORKING, 'step 1'));
        await new Promise<void>((resolve) => waits.gates.push(resolve));
        bus.publish(artifact('step 2'));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      } else {
        bus.publish(artifact(`echo ${text}`));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      }
      bus.finished();
    },
    async cancelTask(taskId) {
      waits.cancels.get(taskId)?.();
    },
  };
}

function v03Executor(waits: Waits): V03Executor {
  return {
    async execute(context, bus) {
      const { taskId, contextId } = context;
      const text = context.userMessage.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
      const status = (state: 'working' | 'completed' | 'canceled', message?: string) => ({
        kind: 'status-update' as const,
        taskId,
        contextId,
        status: { state, ...(message === undefined ? {} : { message: { kind: 'message' as const, messageId: randomUUID(), role: 'agent' as const, parts: [{ kind: 'text' as const, text: message }], taskId, contextId } }) },
        final: state !== 'working',
      });
      const artifact = (value: string) => ({ kind: 'artifact-update' as const, taskId, contextId, artifact: { artifactId: randomUUID(), name: 'answer', parts: [{ kind: 'text' as const, text: value }] }, lastChunk: true });
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [context.userMessage] });
      if (text === 'wait') {
        bus.publish(status('working', 'waiting'));
        await new Promise<void>((resolve) => waits.cancels.set(taskId, resolve));
        bus.publish(status('canceled'));
      } else if (text === 'steps') {
        bus.publish(status('working', 'step 1'));
        await new Promise<void>((resolve) => waits.gates.push(resolve));
        bus.publish(artifact('step 2'));
        bus.publish(status('completed'));
      } else {
        bus.publish(artifact(`echo ${text}`));
        bus.publish(status('completed'));
      }
      bus.finished();
    },
    async cancelTask(taskId) {
      waits.cancels.get(taskId)?.();
    },
  };
}

/** Push-notification configs are kept (so their calls can be relayed and checked); nothing is sent to them. */
const noPushes = { send: async () => undefined };

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve) => {
    const started = app.listen(0, '127.0.0.1', () => resolve(started));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * An A2A agent of `version`, its JSON-RPC at `{url}/rpc` (or, `binding: 'rest'`, only HTTP+JSON at
 * `{url}/rest`). `name` names it in its card; `tenant` is the tenant its 1.0 card's interface names.
 */
export async function startFakeA2aAgent(version: '0.3' | '1.0', name = `${version} agent`, binding: 'jsonrpc' | 'rest' = 'jsonrpc', tenant = ''): Promise<FakeA2aAgent> {
  const waits: Waits = { gates: [], cancels: new Map() };
  const requests: IncomingHttpHeaders[] = [];
  const routes: string[] = [];
  const app = express();
  app.use((req, _res, next) => {
    requests.push(req.headers);
    routes.push(`${req.method} ${req.url}`);
    next();
  });
  const rest = binding === 'rest';
  // The card needs the port: the app listens first, the routes are added after.
  const { server, url } = await listen(app);
  if (version === '1.0') {
    const card = {
      name,
      description: 'A test agent',
      version: '1.0.0',
      supportedInterfaces: [rest ? { url: `${url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant } : { url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant }],
      provider: undefined,
      capabilities: { streaming: true, pushNotifications: true, extensions: [] },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: AGENT_SKILLS.map((skill) => ({ ...skill, examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
      signatures: [],
    };
    const handler = new V1Handler(card as unknown as ConstructorParameters<typeof V1Handler>[0], new V1Store(), v1Executor(waits), undefined, new V1PushStore(), noPushes);
    app.use('/.well-known/agent-card.json', v1CardHandler({ agentCardProvider: handler }));
    if (rest) app.use('/rest', v1Rest({ requestHandler: handler, userBuilder: V1Users.noAuthentication }));
    else app.use('/rpc', v1JsonRpc({ requestHandler: handler, userBuilder: V1Users.noAuthentication }));
  } else {
    const card = {
      name,
      description: 'A test agent',
      protocolVersion: '0.3.0',
      version: '1.0.0',
      url: rest ? `${url}/rest` : `${url}/rpc`,
      ...(rest ? { preferredTransport: 'HTTP+JSON' } : {}),
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ['text'],
      defaultOutputModes: ['text'],
      skills: AGENT_SKILLS,
    };
    const handler = new V03Handler(card, new V03Store(), v03Executor(waits), undefined, new V03PushStore(), noPushes);
    app.use('/.well-known/agent-card.json', v03CardHandler({ agentCardProvider: handler }));
    if (rest) app.use('/rest', v03Rest({ requestHandler: handler, userBuilder: V03Users.noAuthentication }));
    else app.use('/rpc', v03JsonRpc({ requestHandler: handler, userBuilder: V03Users.noAuthentication }));
  }
  return {
    url,
    version,
    requests,
    routes,
    release: () => waits.gates.splice(0).forEach((go) => go()),
    close: () =>
      new Promise<void>((resolve) => {
        waits.gates.splice(0).forEach((go) => go());
        waits.cancels.forEach((go) => go());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A hand-written agent on loopback: `answer` gets each request with its whole body, and may leave it unanswered. */
export async function startHandWrittenAgent(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => answer(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
