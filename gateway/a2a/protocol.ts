/**
 * The two A2A generations gw relays: 0.3 (slash method names, `kind` discriminators, lower-case
 * enums) and 1.0 (PascalCase methods, one-field wrappers, `TASK_STATE_*` enums, the `A2A-Version`
 * header). Which one a caller speaks, and which one the agent speaks (from its card).
 */
export type A2aVersion = '0.3' | '1.0';

export const A2A_VERSION_HEADER = 'a2a-version';

/** 0.3 method -> its 1.0 name. */
const V03_TO_V1: Readonly<Record<string, string>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};
const V1_TO_V03: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(V03_TO_V1).map(([v03, v1]) => [v1, v03]));
/** 1.0 methods with no 0.3 counterpart: relayed only to 1.0 agents. */
const V1_ONLY = new Set(['ListTasks']);

const STREAMING = new Set(['message/stream', 'tasks/resubscribe', 'SendStreamingMessage', 'SubscribeToTask']);
const SENDING = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);
/** A2A's VersionNotSupportedError. */
export const VERSION_NOT_SUPPORTED = -32009;

const PUSH_CONFIG_SET = new Set(['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig']);

export const isKnownMethod = (method: string) => method in V03_TO_V1 || method in V1_TO_V03 || V1_ONLY.has(method);
export const isStreamingMethod = (method: string) => STREAMING.has(method);
export const isSendingMethod = (method: string) => SENDING.has(method);
export const isPushConfigSet = (method: string) => PUSH_CONFIG_SET.has(method);

/** An A2A-Version header gw cannot serve (neither 0.x nor 1.x); absent is fine. */
export const isUnsupportedVersion = (header: string | undefined) => header !== undefined && header.trim() !== '' && !/^\s*(0|1)\./.test(header);

/** The caller's generation: its A2A-Version header, else what its method name says. */
export function callerVersion(header: string | undefined, method: string): A2aVersion {
  if (header?.trim().startsWith('1.')) return '1.0';
  if (header?.trim().startsWith('0.')) return '0.3';
  return method in V03_TO_V1 ? '0.3' : '1.0';
}

/** The method's name in `version`; undefined when that generation has none. */
export function methodIn(method: string, version: A2aVersion): string | undefined {
  if (version === '1.0') return V03_TO_V1[method] ?? (method in V1_TO_V03 || V1_ONLY.has(method) ? method : undefined);
  return V1_TO_V03[method] ?? (method in V03_TO_V1 ? method : undefined);
}

/** The same method's name in 1.0, for logs and policies (one name whatever the caller spoke). */
export const canonicalMethod = (method: string) => V03_TO_V1[method] ?? method;
