/**
 * A2A 0.3's HTTP+JSON transport speaks the protobuf JSON of 0.3's a2a.proto, not the JSON of its
 * JSON-RPC: messages carry `content` (not `parts`) and no `kind`; parts are `{text}`,
 * `{file: {fileWithUri | fileWithBytes, mimeType}}` or `{data: {data}}`; roles are `ROLE_USER` /
 * `ROLE_AGENT`; states `TASK_STATE_*` (canceled is `TASK_STATE_CANCELLED`); results and events are
 * wrapped in one field (`task`, `message`, `statusUpdate`, `artifactUpdate`); a push config is
 * `{name: "tasks/{id}/pushNotificationConfigs/{configId}", pushNotificationConfig}`; the send
 * configuration names its push config `pushNotification`. gw turns these into 0.3 JSON-RPC JSON
 * on the way in (the door relays that, bridged by bridge.ts when the agent speaks 1.0) and back
 * on the way out. Fields gw does not know pass as they are.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const without = (value: Json, ...keys: string[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
const defined = (value: Json) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined && item !== ''));
const list = (value: unknown, convert: (item: unknown) => unknown) => (Array.isArray(value) ? value.map(convert) : undefined);

const ROLE_IN: Record<string, string> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };
const ROLE_OUT: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };
/** 0.3 states whose proto name is not the upper-cased word. */
const STATE_OUT: Record<string, string> = { canceled: 'TASK_STATE_CANCELLED', unknown: 'TASK_STATE_UNSPECIFIED' };

const stateOut = (state: unknown) => (typeof state === 'string' ? (STATE_OUT[state] ?? `TASK_STATE_${state.toUpperCase().replace(/-/g, '_')}`) : state);

// -- in: the REST body's proto JSON -> 0.3 JSON-RPC params --------------------------------------

function partIn(part: unknown): unknown {
  if (!isObject(part)) return part;
  const rest = without(part, 'text', 'file', 'data');
  if (typeof part.text === 'string') return { ...rest, kind: 'text', text: part.text };
  if (isObject(part.file)) {
    const { fileWithUri, fileWithBytes, mimeType, ...file } = part.file;
    return { ...rest, kind: 'file', file: defined({ ...file, uri: fileWithUri, bytes: fileWithBytes, mimeType }) };
  }
  if (isObject(part.data)) return { ...rest, kind: 'data', data: part.data.data };
  return part;
}

function messageIn(message: unknown): unknown {
  if (!isObject(message)) return message;
  const role = typeof message.role === 'string' ? (ROLE_IN[message.role] ?? message.role) : message.role;
  return defined({ ...without(message, 'content'), kind: 'message', role, parts: list(message.content, partIn) ?? [] });
}

/** `POST /v1/message:send|stream`: `{message (or request), configuration, metadata}`. */
export function sendParamsIn(body: Json): Json {
  const configuration = isObject(body.configuration) ? body.configuration : undefined;
  return defined({
    ...without(body, 'request', 'message', 'configuration'),
    message: messageIn(body.message ?? body.request),
    // proto3 semantics: an absent `blocking` in a configuration is false.
    configuration: configuration && defined({ ...without(configuration, 'pushNotification'), blocking: configuration.blocking === true, pushNotificationConfig: configuration.pushNotification }),
  });
}

/**
 * `POST /v1/tasks/{id}/pushNotificationConfigs`: the SDK's 0.3 clients send a
 * TaskPushNotificationConfig (`{name, pushNotificationConfig}`); 0.3.x servers also read the
 * create request (`{parent, configId, config: {...}}`). Both are taken.
 */
export function pushConfigIn(taskId: string, body: Json): Json {
  const holder = isObject(body.config) ? body.config : body;
  const config = isObject(holder.pushNotificationConfig) ? holder.pushNotificationConfig : {};
  const id = config.id ?? (typeof body.configId === 'string' && body.configId !== '' ? body.configId : undefined);
  return { taskId, pushNotificationConfig: defined({ ...config, id }) };
}

// -- out: 0.3 JSON-RPC results -> the REST answer's proto JSON ----------------------------------

function partOut(part: unknown): unknown {
  if (!isObject(part)) return part;
  const rest = without(part, 'kind', 'text', 'file', 'data');
  if (part.kind === 'text') return { ...rest, text: part.text };
  if (part.kind === 'data') return { ...rest, data: { data: part.data } };
  if (part.kind === 'file' && isObject(part.file)) {
    const { uri, bytes, mimeType, ...file } = part.file;
    return { ...rest, file: defined({ ...file, fileWithUri: uri, fileWithBytes: bytes, mimeType }) };
  }
  return part;
}

function messageOut(message: unknown): unknown {
  if (!isObject(message)) return message;
  const role = typeof message.role === 'string' ? (ROLE_OUT[message.role] ?? message.role) : message.role;
  return defined({ ...without(message, 'kind', 'parts'), role, content: list(message.parts, partOut) });
}

function statusOut(status: unknown): unknown {
  if (!isObject(status)) return status;
  return defined({ ...status, state: stateOut(status.state), message: status.message === undefined ? undefined : messageOut(status.message) });
}

function artifactOut(artifact: unknown): unknown {
  return isObject(artifact) ? defined({ ...artifact, parts: list(artifact.parts, partOut) }) : artifact;
}

function taskOut(task: unknown): unknown {
  if (!isObject(task)) return task;
  return defined({ ...without(task, 'kind'), status: statusOut(task.status), artifacts: list(task.artifacts, artifactOut), history: list(task.history, messageOut) });
}

/** A send result or stream event: 0.3's kind-tagged object -> the proto's one-field wrapper. */
function streamResponseOut(value: unknown): unknown {
  if (!isObject(value)) return value;
  switch (value.kind) {
    case 'task':
      return { task: taskOut(value) };
    case 'message':
      return { message: messageOut(value) };
    case 'status-update':
      return { statusUpdate: defined({ ...without(value, 'kind'), status: statusOut(value.status) }) };
    case 'artifact-update':
      return { artifactUpdate: defined({ ...without(value, 'kind'), artifact: artifactOut(value.artifact) }) };
    default:
      return value;
  }
}

function pushConfigOut(config: unknown): unknown {
  if (!isObject(config) || !isObject(config.pushNotificationConfig)) return config;
  const inner = config.pushNotificationConfig;
  return { name: `tasks/${String(config.taskId)}/pushNotificationConfigs/${String(inner.id ?? '')}`, pushNotificationConfig: inner };
}

/** The gateway card as 0.3's proto AgentCard: gw's key scheme in the proto's oneof shape, 1.0's fields left out. */
function cardOut(card: unknown): unknown {
  if (!isObject(card)) return card;
  const description = 'A gw API key with the agents.invoke scope';
  return {
    ...without(card, 'supportedInterfaces', 'securityRequirements', 'security', 'securitySchemes'),
    securitySchemes: { gwApiKey: { apiKeySecurityScheme: { location: 'header', name: 'x-gw-api-key', description } } },
    security: [{ schemes: { gwApiKey: { list: [] } } }],
  };
}

/** A 0.3 JSON-RPC result in the REST answer's JSON (`method` is the 0.3 name). */
export function resultOut(method: string, result: unknown): unknown {
  switch (method) {
    case 'message/send':
    case 'message/stream':
    case 'tasks/resubscribe':
      return streamResponseOut(result);
    case 'tasks/get':
    case 'tasks/cancel':
      return taskOut(result);
    case 'tasks/pushNotificationConfig/set':
    case 'tasks/pushNotificationConfig/get':
      return pushConfigOut(result);
    case 'tasks/pushNotificationConfig/list':
      return { configs: Array.isArray(result) ? result.map(pushConfigOut) : [] };
    case 'agent/getAuthenticatedExtendedCard':
      return cardOut(result);
    default:
      return result;
  }
}
