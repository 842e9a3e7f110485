/**
 * Calling an agent whose card offers only A2A's HTTP+JSON (REST) binding: each call, given as its
 * 1.0 method name and 1.0 JSON params, becomes the agent's route; the agent's answers, events and
 * errors come back as JSON-RPC envelopes whose results are 1.0 JSON, so the door bridges and
 * answers them as it does a JSON-RPC agent's.
 *
 * Wire facts. 1.0 agents: routes at the interface URL (after the interface's tenant, if any),
 * bodies and answers in 1.0 JSON, errors `{error: {code: <HTTP status>, status, message, details:
 * [{reason, domain}]}}`. 0.3 agents: routes under `{url}/v1/`, bodies and answers in the JSON of
 * 0.3's protobuf definition: a message's parts are `content` (`{text}`, `{file: {fileWithUri |
 * fileWithBytes, mimeType}}`, `{data: {data}}`), enums are `ROLE_USER`, `TASK_STATE_CANCELLED`,
 * push configs are `{name: "tasks/{t}/pushNotificationConfigs/{c}", pushNotificationConfig}`, the
 * extended card is `GET /v1/card`, and errors are `{code, message, data}` with JSON-RPC codes.
 * Streams are SSE whose events are bare results (errors as `event: error`).
 */
import type { AgentEndpoint } from './agent-endpoint.js';
import { A2A_ERRORS } from './rest-binding.js';
import { RPC, type RpcId } from './rpc-errors.js';

type Json = Record<string, unknown>;

export interface RestAgentCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  body?: string;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const defined = (value: Json) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));
const without = (value: Json, ...keys: string[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
const segment = (value: unknown) => encodeURIComponent(String(value ?? ''));

function query(params: Json, names: string[]): string {
  const search = new URLSearchParams();
  for (const name of names) if (params[name] !== undefined && params[name] !== '') search.set(name, String(params[name]));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The route of a 1.0 method, and its body, in `version`'s HTTP+JSON binding; undefined: the binding has none. */
function route(version: '0.3' | '1.0', method: string, params: Json): { method: RestAgentCall['method']; path: string; body?: unknown } | undefined {
  const task = segment(method.includes('PushNotificationConfig') ? params.taskId : params.id);
  const v03 = version === '0.3';
  switch (method) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', body: v03 ? sendParamsToV03(params) : without(params, 'tenant') };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', body: v03 ? sendParamsToV03(params) : without(params, 'tenant') };
    case 'GetTask':
      return { method: 'GET', path: `/tasks/${task}${query(params, ['historyLength'])}` };
    case 'CancelTask':
      return { method: 'POST', path: `/tasks/${task}:cancel`, body: v03 ? {} : without(params, 'tenant', 'id') };
    case 'SubscribeToTask':
      return { method: 'POST', path: `/tasks/${task}:subscribe`, body: {} };
    case 'ListTasks':
      return v03 ? undefined : { method: 'GET', path: `/tasks${query(params, ['contextId', 'status', 'pageSize', 'pageToken', 'historyLength', 'statusTimestampAfter', 'includeArtifacts'])}` };
    case 'CreateTaskPushNotificationConfig':
      return { method: 'POST', path: `/tasks/${task}/pushNotificationConfigs`, body: v03 ? pushConfigToV03(params) : without(params, 'tenant') };
    case 'GetTaskPushNotificationConfig':
      return { method: 'GET', path: `/tasks/${task}/pushNotificationConfigs/${segment(params.id)}` };
    case 'DeleteTaskPushNotificationConfig':
      return { method: 'DELETE', path: `/tasks/${task}/pushNotificationConfigs/${segment(params.id)}` };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', path: `/tasks/${task}/pushNotificationConfigs${v03 ? '' : query(params, ['pageSize', 'pageToken'])}` };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: v03 ? '/card' : '/extendedAgentCard' };
    default:
      return undefined;
  }
}

/** The agent's request for a call (`method` its 1.0 name, `params` 1.0 JSON); undefined: no such route. */
export function restAgentCall(endpoint: AgentEndpoint, method: string, params: unknown): RestAgentCall | undefined {
  const version = endpoint.version ?? '1.0';
  const found = route(version, method, isObject(params) ? params : {});
  if (!found) return undefined;
  const prefix = version === '0.3' ? '/v1' : endpoint.tenant ? `/${segment(endpoint.tenant)}` : '';
  const base = endpoint.url.replace(/\/+$/, '');
  return { method: found.method, url: `${base}${prefix}${found.path}`, ...(found.body === undefined ? {} : { body: JSON.stringify(found.body) }) };
}

// 1.0 JSON -> 0.3 protobuf JSON (requests).

function partToV03(part: unknown): unknown {
  if (!isObject(part)) return part;
  if (typeof part.text === 'string') return { text: part.text };
  if ('data' in part) return { data: { data: part.data } };
  return { file: defined({ fileWithUri: part.url, fileWithBytes: part.raw, mimeType: part.mediaType }) };
}

function messageToV03(message: unknown): unknown {
  if (!isObject(message)) return message;
  return defined({ ...without(message, 'parts', 'referenceTaskIds'), content: Array.isArray(message.parts) ? message.parts.map(partToV03) : undefined });
}

function pushInnerToV03(config: Json): Json {
  const auth = isObject(config.authentication) ? config.authentication : undefined;
  const authentication = auth ? defined({ schemes: auth.scheme ? [auth.scheme] : [], credentials: auth.credentials }) : undefined;
  return defined({ id: config.id, url: config.url, token: config.token, authentication });
}

function sendParamsToV03(params: Json): Json {
  const configuration = isObject(params.configuration) ? params.configuration : undefined;
  const push = configuration && isObject(configuration.taskPushNotificationConfig) ? configuration.taskPushNotificationConfig : undefined;
  return defined({
    message: messageToV03(params.message),
    metadata: params.metadata,
    configuration: configuration
      ? defined({ acceptedOutputModes: configuration.acceptedOutputModes, historyLength: configuration.historyLength, blocking: configuration.returnImmediately !== true, pushNotification: push && pushInnerToV03(push) })
      : undefined,
  });
}

function pushConfigToV03(params: Json): Json {
  const name = `tasks/${String(params.taskId)}/pushNotificationConfigs/${String(params.id ?? '')}`;
  return defined({ parent: `tasks/${String(params.taskId)}`, configId: params.id, config: { name, pushNotificationConfig: pushInnerToV03(params) } });
}

// 0.3 protobuf JSON -> 1.0 JSON (answers and events).

function partFromV03(part: unknown): unknown {
  if (!isObject(part)) return part;
  if (typeof part.text === 'string') return { text: part.text };
  if (isObject(part.data)) return { data: part.data.data };
  const file = isObject(part.file) ? part.file : {};
  return defined({ url: file.fileWithUri, raw: file.fileWithBytes, mediaType: file.mimeType });
}

function messageFromV03(message: unknown): unknown {
  if (!isObject(message)) return message;
  return defined({ ...without(message, 'content'), parts: Array.isArray(message.content) ? message.content.map(partFromV03) : [] });
}

function statusFromV03(status: unknown): unknown {
  if (!isObject(status)) return status;
  const state = status.state === 'TASK_STATE_CANCELLED' ? 'TASK_STATE_CANCELED' : status.state;
  const message = status.message ?? status.update;
  return defined({ ...without(status, 'update', 'message'), state, message: message === undefined ? undefined : messageFromV03(message) });
}

function artifactFromV03(artifact: unknown): unknown {
  return isObject(artifact) ? { ...artifact, parts: Array.isArray(artifact.parts) ? artifact.parts.map(partFromV03) : [] } : artifact;
}

function taskFromV03(task: unknown): unknown {
  if (!isObject(task)) return task;
  return defined({
    ...task,
    status: statusFromV03(task.status),
    artifacts: Array.isArray(task.artifacts) ? task.artifacts.map(artifactFromV03) : undefined,
    history: Array.isArray(task.history) ? task.history.map(messageFromV03) : undefined,
  });
}

/** A send result or stream event: `{task | message (msg) | statusUpdate | artifactUpdate}`. */
function streamResponseFromV03(value: Json): Json {
  if (isObject(value.task)) return { task: taskFromV03(value.task) };
  const message = value.message ?? value.msg;
  if (isObject(message)) return { message: messageFromV03(message) };
  if (isObject(value.statusUpdate)) return { statusUpdate: { ...without(value.statusUpdate, 'final'), status: statusFromV03(value.statusUpdate.status) } };
  if (isObject(value.artifactUpdate)) return { artifactUpdate: { ...value.artifactUpdate, artifact: artifactFromV03(value.artifactUpdate.artifact) } };
  return value;
}

function pushConfigFromV03(config: unknown): unknown {
  if (!isObject(config)) return config;
  const names = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/.exec(String(config.name ?? ''));
  const inner = isObject(config.pushNotificationConfig) ? config.pushNotificationConfig : {};
  const auth = isObject(inner.authentication) ? inner.authentication : undefined;
  const authentication = auth ? defined({ scheme: Array.isArray(auth.schemes) ? (auth.schemes[0] ?? '') : '', credentials: auth.credentials }) : undefined;
  return defined({ taskId: names?.[1], id: inner.id ?? names?.[2], url: inner.url, token: inner.token, authentication });
}

/** An agent's successful answer as the 1.0 JSON-RPC result of `method`. */
function resultFromAgent(version: '0.3' | '1.0', method: string, body: unknown): unknown {
  if (version === '1.0' || !isObject(body)) return body;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return streamResponseFromV03(body);
    case 'GetTask':
    case 'CancelTask':
      return taskFromV03(body);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigFromV03(body);
    case 'ListTaskPushNotificationConfigs':
      return { configs: Array.isArray(body.configs) ? body.configs.map(pushConfigFromV03) : [] };
    default:
      return body;
  }
}

// Errors: HTTP status and body -> JSON-RPC error.

const REASON_CODES: Record<string, number> = Object.fromEntries(
  Object.entries(A2A_ERRORS)
    .filter(([code]) => Number(code) <= -32001 && Number(code) >= -32009)
    .map(([code, { reason }]) => [reason, Number(code)]),
);

/** What a status says when the body names no A2A error: a missing route is a missing method, 409 an uncancelable task. */
function codeOfStatus(status: number): number {
  if (status === 400 || status === 422) return RPC.invalidParams;
  if (status === 404 || status === 405) return RPC.methodNotFound;
  if (status === 409) return -32002;
  if (status === 501) return RPC.unsupportedOperation;
  return RPC.internal;
}

/** The agent's error answer (any HTTP status of 400 and up) as a JSON-RPC error; 1.0's details ride in `data`, as 1.0's JSON-RPC errors carry them. */
function errorFromAgent(status: number, body: unknown): Json {
  if (isObject(body) && isObject(body.error)) {
    const { error } = body;
    const details = Array.isArray(error.details) ? error.details : undefined;
    const reason = details?.map((detail) => (isObject(detail) ? detail.reason : undefined)).find((item) => typeof item === 'string' && item in REASON_CODES);
    const code = typeof reason === 'string' ? REASON_CODES[reason]! : codeOfStatus(status);
    return defined({ code, message: typeof error.message === 'string' ? error.message : `The agent answered HTTP ${status}`, data: details?.length ? details : undefined });
  }
  if (isObject(body) && typeof body.code === 'number') return defined({ code: body.code, message: typeof body.message === 'string' ? body.message : `The agent answered HTTP ${status}`, data: body.data });
  return { code: codeOfStatus(status), message: `The agent answered HTTP ${status}` };
}

const envelope = (id: RpcId, answer: { result: unknown } | { error: Json }) => ({ jsonrpc: '2.0', id, ...answer });

/**
 * The agent's plain answer as a JSON-RPC envelope (result in 1.0 JSON); throws SyntaxError when a
 * successful answer is not JSON. A 204 (a deleted config) is an empty result.
 */
export function restAnswer(version: '0.3' | '1.0', method: string, id: RpcId, status: number, text: string): Json {
  if (status >= 400) {
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return envelope(id, { error: errorFromAgent(status, body) });
  }
  if (status === 204 || text.trim() === '') return envelope(id, { result: {} });
  return envelope(id, { result: resultFromAgent(version, method, JSON.parse(text)) });
}

/** One SSE event of the agent's stream as a JSON-RPC envelope; undefined when it is not JSON. */
export function restEvent(version: '0.3' | '1.0', method: string, id: RpcId, data: string): Json | undefined {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (isObject(body) && (isObject(body.error) || (typeof body.code === 'number' && typeof body.message === 'string'))) {
    const status = isObject(body.error) && typeof body.error.code === 'number' ? body.error.code : 500;
    return envelope(id, { error: errorFromAgent(status, body) });
  }
  return envelope(id, { result: resultFromAgent(version, method, body) });
}
