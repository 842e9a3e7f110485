/**
 * Bridges A2A 0.3 and 1.0 JSON where a caller and its agent speak different generations. The wire
 * facts: 0.3 tags objects with `kind` ('message', 'task', 'status-update', 'artifact-update') and
 * parts with `kind` ('text', 'file' {bytes|uri, mimeType, name}, 'data'); 1.0 wraps results and
 * events in one field (`task`, `message`, `statusUpdate`, `artifactUpdate`) and parts are
 * `{text}`, `{raw|url, mediaType, filename}` or `{data}`; roles `user`/`agent` are `ROLE_USER`/
 * `ROLE_AGENT`; states `input-required` are `TASK_STATE_INPUT_REQUIRED`; 0.3's `blocking` is 1.0's
 * `returnImmediately` negated; push-notification configs are nested in 0.3, flat in 1.0. Fields
 * gw does not know pass as they are.
 */
import type { A2aVersion } from './protocol.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const without = (value: Json, ...keys: string[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
const defined = (value: Json) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));

const TERMINAL_OR_WAITING = new Set(['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required']);

export const stateToV1 = (state: unknown) => (typeof state === 'string' && !state.startsWith('TASK_STATE_') ? `TASK_STATE_${state.toUpperCase().replace(/-/g, '_')}` : state);
export const stateToV03 = (state: unknown) => (typeof state === 'string' && state.startsWith('TASK_STATE_') ? state.slice('TASK_STATE_'.length).toLowerCase().replace(/_/g, '-') : state);
const roleToV1 = (role: unknown) => (role === 'user' ? 'ROLE_USER' : role === 'agent' ? 'ROLE_AGENT' : role);
const roleToV03 = (role: unknown) => (role === 'ROLE_USER' ? 'user' : role === 'ROLE_AGENT' ? 'agent' : role);

function partToV1(part: unknown): unknown {
  if (!isObject(part) || typeof part.kind !== 'string') return part;
  const rest = without(part, 'kind', 'text', 'file', 'data');
  if (part.kind === 'text') return { ...rest, text: part.text };
  if (part.kind === 'data') return { ...rest, data: part.data };
  const file = isObject(part.file) ? part.file : {};
  return defined({ ...rest, raw: file.bytes, url: file.uri, mediaType: file.mimeType, filename: file.name });
}

function partToV03(part: unknown): unknown {
  if (!isObject(part) || typeof part.kind === 'string') return part;
  const rest = without(part, 'text', 'raw', 'url', 'data', 'mediaType', 'filename');
  if (typeof part.text === 'string') return { ...rest, kind: 'text', text: part.text };
  if ('data' in part) return { ...rest, kind: 'data', data: isObject(part.data) ? part.data : { value: part.data } };
  return { ...rest, kind: 'file', file: defined({ bytes: part.raw, uri: part.url, mimeType: part.mediaType, name: part.filename }) };
}

const parts = (value: unknown, convert: (part: unknown) => unknown) => (Array.isArray(value) ? value.map(convert) : value);

function messageTo(message: unknown, to: A2aVersion): unknown {
  if (!isObject(message)) return message;
  if (to === '1.0') return { ...without(message, 'kind'), role: roleToV1(message.role), parts: parts(message.parts, partToV1) };
  return { ...message, kind: 'message', role: roleToV03(message.role), parts: parts(message.parts, partToV03) };
}

function artifactTo(artifact: unknown, to: A2aVersion): unknown {
  if (!isObject(artifact)) return artifact;
  return { ...artifact, parts: parts(artifact.parts, to === '1.0' ? partToV1 : partToV03) };
}

function statusTo(status: unknown, to: A2aVersion): unknown {
  if (!isObject(status)) return status;
  const state = to === '1.0' ? stateToV1(status.state) : stateToV03(status.state);
  return defined({ ...status, state, message: status.message === undefined ? undefined : messageTo(status.message, to) });
}

function taskTo(task: unknown, to: A2aVersion): unknown {
  if (!isObject(task)) return task;
  const converted = defined({
    ...without(task, 'kind'),
    status: statusTo(task.status, to),
    artifacts: Array.isArray(task.artifacts) ? task.artifacts.map((artifact) => artifactTo(artifact, to)) : undefined,
    history: Array.isArray(task.history) ? task.history.map((message) => messageTo(message, to)) : undefined,
  });
  return to === '0.3' ? { ...converted, kind: 'task' } : converted;
}

/** A send result or stream event: 0.3's kind-tagged object <-> 1.0's one-field wrapper. */
export function streamResponseTo(value: unknown, to: A2aVersion): unknown {
  if (!isObject(value)) return value;
  if (to === '1.0') {
    switch (value.kind) {
      case 'task':
        return { task: taskTo(value, to) };
      case 'message':
        return { message: messageTo(value, to) };
      case 'status-update':
        return { statusUpdate: { ...without(value, 'kind', 'final'), status: statusTo(value.status, to) } };
      case 'artifact-update':
        return { artifactUpdate: { ...without(value, 'kind'), artifact: artifactTo(value.artifact, to) } };
      default:
        return value;
    }
  }
  if (isObject(value.task)) return taskTo(value.task, to);
  if (isObject(value.message)) return messageTo(value.message, to);
  if (isObject(value.statusUpdate)) {
    const status = statusTo(value.statusUpdate.status, to) as Json;
    return { ...value.statusUpdate, kind: 'status-update', status, final: TERMINAL_OR_WAITING.has(String(status.state)) };
  }
  if (isObject(value.artifactUpdate)) return { ...value.artifactUpdate, kind: 'artifact-update', artifact: artifactTo(value.artifactUpdate.artifact, to) };
  return value;
}

function pushConfigTo(config: unknown, to: A2aVersion): unknown {
  if (!isObject(config)) return config;
  if (to === '1.0') {
    const inner = isObject(config.pushNotificationConfig) ? config.pushNotificationConfig : config;
    const auth = isObject(inner.authentication) ? inner.authentication : undefined;
    const authentication = auth ? { scheme: Array.isArray(auth.schemes) ? (auth.schemes[0] ?? '') : '', credentials: auth.credentials } : undefined;
    return defined({ ...without(inner, 'authentication'), taskId: config.taskId, authentication });
  }
  const auth = isObject(config.authentication) ? config.authentication : undefined;
  const authentication = auth ? defined({ schemes: auth.scheme ? [auth.scheme] : [], credentials: auth.credentials }) : undefined;
  return { taskId: config.taskId, pushNotificationConfig: defined({ ...without(config, 'taskId', 'tenant', 'authentication'), authentication }) };
}

/** A request's params in the agent's generation (`method` is the 1.0 name). */
export function paramsTo(method: string, params: unknown, to: A2aVersion): unknown {
  if (!isObject(params)) return params;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const configuration = isObject(params.configuration) ? params.configuration : undefined;
      return defined({ ...params, message: messageTo(params.message, to), configuration: configuration && configurationTo(configuration, to) });
    }
    case 'CreateTaskPushNotificationConfig':
      return pushConfigTo(params, to);
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return to === '1.0'
        ? defined({ ...without(params, 'pushNotificationConfigId'), taskId: params.id, id: params.pushNotificationConfigId })
        : defined({ ...without(params, 'taskId', 'tenant'), id: params.taskId, pushNotificationConfigId: params.id });
    case 'ListTaskPushNotificationConfigs':
      return to === '1.0' ? defined({ ...without(params, 'id'), taskId: params.id }) : defined({ ...without(params, 'taskId', 'tenant'), id: params.taskId });
    default:
      return params;
  }
}

function configurationTo(configuration: Json, to: A2aVersion): Json {
  if (to === '1.0') {
    const push = configuration.pushNotificationConfig;
    return defined({
      ...without(configuration, 'blocking', 'pushNotificationConfig'),
      returnImmediately: configuration.blocking === false ? true : undefined,
      taskPushNotificationConfig: push === undefined ? undefined : pushConfigTo(push, to),
    });
  }
  const push = configuration.taskPushNotificationConfig;
  return defined({
    ...without(configuration, 'returnImmediately', 'taskPushNotificationConfig'),
    blocking: configuration.returnImmediately !== true,
    pushNotificationConfig: isObject(push) ? (pushConfigTo(push, to) as Json).pushNotificationConfig : undefined,
  });
}

/** A result in the caller's generation (`method` is the 1.0 name). */
export function resultTo(method: string, result: unknown, to: A2aVersion): unknown {
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return streamResponseTo(result, to);
    case 'GetTask':
    case 'CancelTask':
      return taskTo(result, to);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigTo(result, to);
    case 'ListTaskPushNotificationConfigs': {
      if (to === '1.0') return { configs: Array.isArray(result) ? result.map((config) => pushConfigTo(config, to)) : [] };
      const configs = isObject(result) && Array.isArray(result.configs) ? result.configs : [];
      return configs.map((config) => pushConfigTo(config, to));
    }
    default:
      return result;
  }
}

/** The push-notification URLs a request names (they must pass the outbound guard). */
export function pushUrlsOf(params: unknown): string[] {
  if (!isObject(params)) return [];
  const candidates = [params.url, isObject(params.pushNotificationConfig) ? params.pushNotificationConfig.url : undefined];
  const configuration = isObject(params.configuration) ? params.configuration : undefined;
  for (const key of ['pushNotificationConfig', 'taskPushNotificationConfig']) {
    const config = configuration?.[key];
    if (isObject(config)) candidates.push(config.url);
  }
  return candidates.filter((url): url is string => typeof url === 'string');
}

/** Keys whose text is not the message's or the answer's own: metadata, structured data, and a task's history (the caller's own turns come back in it). */
const NOT_CHECKED = new Set(['metadata', 'data', 'history']);

/** The text parts of a message, task or event, in either generation (what guardrails read). */
export function textsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (!isObject(value)) return [];
  if (typeof value.text === 'string' && (value.kind === 'text' || value.kind === undefined)) return [value.text];
  return Object.entries(value).flatMap(([key, item]) => (NOT_CHECKED.has(key) ? [] : textsOf(item)));
}

/** The task state a result or event reports, in 0.3 words (for the log). */
export function taskStateOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const holder = [value.task, value.statusUpdate, value].find((item) => isObject(item) && isObject(item.status)) as Json | undefined;
  const state = holder && isObject(holder.status) ? holder.status.state : undefined;
  return typeof state === 'string' ? String(stateToV03(state)) : undefined;
}

/** The task and context a result or event belongs to (for the log). */
export function taskIdsOf(value: unknown): { taskId?: string; contextId?: string } {
  if (!isObject(value)) return {};
  const inner = [value.task, value.message, value.statusUpdate, value.artifactUpdate].find(isObject) ?? value;
  const taskId = inner.taskId ?? (inner.kind === 'task' || 'status' in inner ? inner.id : undefined);
  return { taskId: typeof taskId === 'string' ? taskId : undefined, contextId: typeof inner.contextId === 'string' ? inner.contextId : undefined };
}
