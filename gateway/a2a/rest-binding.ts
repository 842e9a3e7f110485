/**
 * The A2A 1.0 HTTP+JSON (REST) binding at `{base}/a2a/{slug}/...` (optionally `.../{tenant}/...`;
 * 0.3's transport, under `v1/`, is rest-v03-binding.ts): each route names one A2A
 * method, so gw turns the route and its body into that method's JSON-RPC request (the 1.0 JSON of
 * both bindings is the same) and relays it as the JSON-RPC door does: same checks, the agent
 * spoken to in the binding and generation its card offers (agent-endpoint.ts), the same log row (with
 * `a2a_binding: rest`). Answers leave in the binding's shape: the result as the body, SSE events
 * as bare results, errors as `{error: {code, status, message, details}}` with the HTTP status.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import { a2aRestErrorBody } from '../../core/protocol-errors.js';
import { sendJson } from '../../core/respond.js';
import { relayA2aRequest } from './a2a-gateway.js';
import { resolveA2aTarget } from './a2a-target.js';
import type { A2aBinding } from './binding.js';
import { A2A_VERSION_HEADER, VERSION_NOT_SUPPORTED } from './protocol.js';
import { A2aRefusal, RPC } from './rpc-errors.js';

type Json = Record<string, unknown>;

interface Route {
  method: string;
  params: Json;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Query parameters that are numbers in the 1.0 JSON (the rest are strings or booleans). */
const NUMERIC_QUERY = new Set(['historyLength', 'pageSize']);

function queryParams(query: URLSearchParams): Json {
  const params: Json = {};
  for (const [name, value] of query) {
    params[name] = NUMERIC_QUERY.has(name) && /^\d+$/.test(value) ? Number(value) : value === 'true' ? true : value === 'false' ? false : value;
  }
  return params;
}

/**
 * The A2A method an HTTP+JSON route names, with its JSON-RPC params; undefined: no such route. A
 * route may sit under a tenant (`{tenant}/message:send`, as 1.0 clients call it when the card's
 * interface declares one): the tenant goes into the params, where 1.0's JSON-RPC carries it.
 */
export function restRoute(httpMethod: string, path: string, query: URLSearchParams, body: unknown): Route | undefined {
  const segments = path.split('/').map((segment) => decodeURIComponent(segment));
  const plain = routeOf(httpMethod, segments, query, body);
  if (plain || segments.length < 2 || !segments[0]) return plain;
  const [tenant, ...rest] = segments;
  const tenanted = routeOf(httpMethod, rest, query, body);
  return tenanted && { method: tenanted.method, params: { ...tenanted.params, tenant } };
}

function routeOf(httpMethod: string, segments: string[], query: URLSearchParams, body: unknown): Route | undefined {
  const payload = isObject(body) ? body : {};
  const [first, second, third, fourth] = segments;
  if (segments.length === 1) {
    if (httpMethod === 'POST' && first === 'message:send') return { method: 'SendMessage', params: payload };
    if (httpMethod === 'POST' && first === 'message:stream') return { method: 'SendStreamingMessage', params: payload };
    if (httpMethod === 'GET' && first === 'extendedAgentCard') return { method: 'GetExtendedAgentCard', params: {} };
    if (httpMethod === 'GET' && first === 'tasks') return { method: 'ListTasks', params: queryParams(query) };
    return undefined;
  }
  if (first !== 'tasks' || !second) return undefined;
  if (segments.length === 2) {
    const action = /^(.+):(cancel|subscribe)$/.exec(second);
    if (!action) return httpMethod === 'GET' ? { method: 'GetTask', params: { ...queryParams(query), id: second } } : undefined;
    if (action[2] === 'cancel' && httpMethod === 'POST') return { method: 'CancelTask', params: { ...payload, id: action[1] } };
    if (action[2] === 'subscribe' && (httpMethod === 'GET' || httpMethod === 'POST')) return { method: 'SubscribeToTask', params: { id: action[1] } };
    return undefined;
  }
  if (third !== 'pushNotificationConfigs') return undefined;
  if (segments.length === 3) {
    if (httpMethod === 'POST') return { method: 'CreateTaskPushNotificationConfig', params: { ...payload, taskId: second } };
    if (httpMethod === 'GET') return { method: 'ListTaskPushNotificationConfigs', params: { ...queryParams(query), taskId: second } };
    return undefined;
  }
  if (segments.length !== 4 || !fourth) return undefined;
  if (httpMethod === 'GET') return { method: 'GetTaskPushNotificationConfig', params: { taskId: second, id: fourth } };
  if (httpMethod === 'DELETE') return { method: 'DeleteTaskPushNotificationConfig', params: { taskId: second, id: fourth } };
  return undefined;
}

/** A2A's error codes (the JSON-RPC ones of the spec) -> the reason and HTTP status of the HTTP+JSON binding. */
export const A2A_ERRORS: Record<number, { reason: string; status: number }> = {
  [-32001]: { reason: 'TASK_NOT_FOUND', status: 404 },
  [-32002]: { reason: 'TASK_NOT_CANCELABLE', status: 400 },
  [-32003]: { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', status: 400 },
  [-32004]: { reason: 'UNSUPPORTED_OPERATION', status: 400 },
  [-32005]: { reason: 'CONTENT_TYPE_NOT_SUPPORTED', status: 400 },
  [-32006]: { reason: 'INVALID_AGENT_RESPONSE', status: 502 },
  [-32007]: { reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', status: 400 },
  [-32008]: { reason: 'EXTENSION_SUPPORT_REQUIRED', status: 400 },
  [-32009]: { reason: 'VERSION_NOT_SUPPORTED', status: 400 },
  [-32700]: { reason: 'INVALID_PARAMS', status: 400 },
  [-32600]: { reason: 'INVALID_PARAMS', status: 400 },
  [-32602]: { reason: 'INVALID_PARAMS', status: 400 },
  [-32601]: { reason: 'UNSUPPORTED_OPERATION', status: 400 },
};

/** An agent's JSON-RPC error, as the binding's status and body. */
function agentError(error: unknown): { status: number; body: unknown } {
  const code = isObject(error) && typeof error.code === 'number' ? error.code : RPC.internal;
  const message = isObject(error) && typeof error.message === 'string' ? error.message : 'The agent answered an error';
  const known = A2A_ERRORS[code];
  const status = known?.status ?? 502;
  return { status, body: a2aRestErrorBody(status, message, { reason: known?.reason ?? 'INTERNAL_ERROR', domain: 'a2a-protocol.org', metadata: { jsonrpc_code: String(code) } }) };
}

/** gw's refusal: its own status; an A2A reason when its code is one of A2A's, else gw's code. */
function refusalBody(refusal: A2aRefusal): unknown {
  // A2A's own errors (-32001 to -32009) keep their reason; gw's refusals name gw's code.
  const known = refusal.code <= -32001 && refusal.code >= -32009 ? A2A_ERRORS[refusal.code] : undefined;
  const gwCode = String(refusal.data.code ?? refusal.data.type ?? 'a2a_refused');
  const info = known ? { reason: known.reason, domain: 'a2a-protocol.org' as const } : { reason: gwCode.toUpperCase(), domain: 'gw' as const, metadata: { type: String(refusal.data.type), code: gwCode } };
  const hookResults = refusal.data.hook_results;
  return a2aRestErrorBody(refusal.status, refusal.message, info, hookResults !== undefined ? { hook_results: hookResults } : {});
}

/** The status a refusal written into a stream would have had (the stream itself is already 200). */
function streamRefusalStatus(code: number, data: Json): number {
  if (code === RPC.guardrailDenied) return 446;
  if (data.type === 'timeout_error') return 504;
  return typeof data.status === 'number' ? data.status : 502;
}

export const restBinding: A2aBinding = {
  name: 'rest',
  answer(call, envelope, headers) {
    if ('error' in envelope) {
      const { status, body } = agentError(envelope.error);
      sendJson(call.res, status, body, headers);
    } else sendJson(call.res, 200, envelope.result ?? {}, headers);
  },
  event(envelope) {
    if ('error' in envelope) {
      const error = envelope.error;
      const refusal = isObject(error) && isObject(error.data) && typeof error.data.type === 'string' && typeof error.code === 'number';
      const body = refusal ? refusalBody(new A2aRefusal(streamRefusalStatus(error.code as number, error.data as Json), error.code as number, String(error.message), error.data as Json)) : agentError(error).body;
      return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
    }
    return `data: ${JSON.stringify(envelope.result)}\n\n`;
  },
  refuse: (call, _id, refusal) => sendJson(call.res, refusal.status, refusalBody(refusal), refusal.headers),
};

/** One HTTP+JSON request to `{base}/a2a/{slug}/{path}`. */
export async function serveA2aRest(call: Call, principal: Principal, slug: string, path: string, body: unknown): Promise<void> {
  const target = await resolveA2aTarget(call.services.agents, principal, slug);
  const httpMethod = call.req.method ?? 'GET';
  const query = new URLSearchParams((call.req.url ?? '').split('?')[1] ?? '');
  let route: Route | undefined;
  try {
    route = restRoute(httpMethod, path, query, body);
  } catch {
    route = undefined; // a malformed escape in a segment: no such route
  }
  if (!route) {
    restBinding.refuse(call, null, new A2aRefusal(404, RPC.methodNotFound, `${httpMethod} /${path} is not a route of the A2A HTTP+JSON binding`, { type: 'not_found_error', code: 'a2a_route_not_found' }));
    return;
  }
  const version = call.req.headers[A2A_VERSION_HEADER];
  if (typeof version === 'string' && version.trim() !== '' && !version.trim().startsWith('1.')) {
    restBinding.refuse(call, null, new A2aRefusal(400, VERSION_NOT_SUPPORTED, `A2A version ${version} is not served on this route: gw's A2A 1.0 HTTP+JSON routes take A2A-Version 1.x (0.3's routes are under v1/)`, { type: 'invalid_request_error', code: 'a2a_version_not_supported' }));
    return;
  }
  await relayA2aRequest(call, principal, target, { id: randomUUID(), method: route.method, params: route.params }, { route: `${httpMethod} /${path}`, body: body ?? null }, restBinding);
}
