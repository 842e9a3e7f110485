/**
 * A2A 0.3's HTTP+JSON transport at `{base}/a2a/{slug}/v1/...`, as the 0.3 SDK's REST client calls
 * it: `GET v1/card`, `POST v1/message:send|stream`, `GET v1/tasks/{id}`, `POST v1/tasks/{id}:cancel`,
 * `GET|POST v1/tasks/{id}:subscribe`, `POST|GET v1/tasks/{id}/pushNotificationConfigs`,
 * `GET|DELETE v1/tasks/{id}/pushNotificationConfigs/{configId}`. Each route names a 0.3 JSON-RPC
 * method; its body (0.3's proto JSON, rest-v03-json.ts) becomes that method's params and the
 * relay is the JSON-RPC door's (same checks and log row, bridged to a 1.0 agent). Answers leave
 * in the transport's shape: the result as proto JSON, SSE events as bare StreamResponses, errors
 * as the JSON-RPC error object itself (`{code, message, data}`) with an HTTP status.
 *
 * Which generation a REST request is: 0.3's routes all start with `v1/`, and 0.3 clients send no
 * `A2A-Version` header (1.x SDKs speaking 0.3 send `0.3`), so a `v1/...` path with no version or
 * a 0.x one is 0.3; with `A2A-Version: 1.x` it is a 1.0 route under the tenant `v1`, as the 1.x
 * SDK's server also tells them apart.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import { sendJson } from '../../core/respond.js';
import { relayA2aRequest } from './a2a-gateway.js';
import { resolveA2aTarget } from './a2a-target.js';
import type { A2aBinding } from './binding.js';
import { pushConfigIn, resultOut, sendParamsIn } from './rest-v03-json.js';
import { A2aRefusal, RPC } from './rpc-errors.js';

type Json = Record<string, unknown>;

interface V03Route {
  method: string;
  params: Json;
  /** The HTTP status of a successful plain answer (the 0.3 SDK's server: 201 for creations, 204 for a delete). */
  ok: number;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a REST path below an agent (`v1/message:send`, ...) with this A2A-Version header is 0.3's transport. */
export function isV03RestRoute(restPath: string, versionHeader: string | string[] | undefined): boolean {
  const version = (Array.isArray(versionHeader) ? versionHeader[0] : versionHeader)?.trim() ?? '';
  return restPath.startsWith('v1/') && (version === '' || version.startsWith('0.'));
}

/** The 0.3 method a route (the path after `v1/`) names, with its JSON-RPC params; undefined: no such route. */
function v03RestRoute(httpMethod: string, path: string, query: URLSearchParams, body: unknown): V03Route | undefined {
  const payload = isObject(body) ? body : {};
  const segments = path.split('/').map((segment) => decodeURIComponent(segment));
  const [first, taskPart, configs, configId] = segments;
  if (segments.length === 1) {
    if (httpMethod === 'GET' && first === 'card') return { method: 'agent/getAuthenticatedExtendedCard', params: {}, ok: 200 };
    if (httpMethod === 'POST' && first === 'message:send') return { method: 'message/send', params: sendParamsIn(payload), ok: 201 };
    if (httpMethod === 'POST' && first === 'message:stream') return { method: 'message/stream', params: sendParamsIn(payload), ok: 200 };
    return undefined;
  }
  if (first !== 'tasks' || !taskPart) return undefined;
  if (segments.length === 2) {
    const action = /^(.+):(cancel|subscribe)$/.exec(taskPart);
    if (!action) {
      if (httpMethod !== 'GET') return undefined;
      const history = query.get('historyLength') ?? query.get('history_length');
      return { method: 'tasks/get', params: { id: taskPart, ...(history && /^\d+$/.test(history) ? { historyLength: Number(history) } : {}) }, ok: 200 };
    }
    if (action[2] === 'cancel' && httpMethod === 'POST') return { method: 'tasks/cancel', params: { id: action[1] }, ok: 200 };
    if (action[2] === 'subscribe' && (httpMethod === 'GET' || httpMethod === 'POST')) return { method: 'tasks/resubscribe', params: { id: action[1] }, ok: 200 };
    return undefined;
  }
  if (configs !== 'pushNotificationConfigs') return undefined;
  if (segments.length === 3) {
    if (httpMethod === 'POST') return { method: 'tasks/pushNotificationConfig/set', params: pushConfigIn(taskPart, payload), ok: 201 };
    if (httpMethod === 'GET') return { method: 'tasks/pushNotificationConfig/list', params: { id: taskPart }, ok: 200 };
    return undefined;
  }
  if (segments.length !== 4 || !configId) return undefined;
  const params = { id: taskPart, pushNotificationConfigId: configId };
  if (httpMethod === 'GET') return { method: 'tasks/pushNotificationConfig/get', params, ok: 200 };
  if (httpMethod === 'DELETE') return { method: 'tasks/pushNotificationConfig/delete', params, ok: 204 };
  return undefined;
}

/** The HTTP status of an agent's A2A error, as the 0.3 SDK's REST server gives it (502 where the agent failed). */
const STATUS_OF_CODE: Record<number, number> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32602]: 400,
  [-32601]: 404,
  [-32001]: 404,
  [-32002]: 409,
  [-32003]: 400,
  [-32004]: 400,
  [-32005]: 400,
  [-32007]: 400,
};

function errorObject(error: unknown): Json {
  const code = isObject(error) && typeof error.code === 'number' ? error.code : RPC.internal;
  const message = isObject(error) && typeof error.message === 'string' ? error.message : 'The agent answered an error';
  return isObject(error) && error.data !== undefined ? { code, message, data: error.data } : { code, message };
}

const refusalObject = (refusal: A2aRefusal) => ({ code: refusal.code, message: refusal.message, data: refusal.data });

/** The 0.3 transport's writer for one route: results converted for `route.method`. */
function v03Binding(route: V03Route): A2aBinding {
  return {
    name: 'rest',
    answer(call, envelope, headers) {
      if ('error' in envelope) {
        const error = errorObject(envelope.error);
        sendJson(call.res, STATUS_OF_CODE[error.code as number] ?? 502, error, headers);
      } else if (route.ok === 204) {
        call.res.writeHead(204, headers).end();
      } else sendJson(call.res, route.ok, resultOut(route.method, envelope.result), headers);
    },
    event(envelope) {
      if ('error' in envelope) return `event: error\ndata: ${JSON.stringify(errorObject(envelope.error))}\n\n`;
      return `data: ${JSON.stringify(resultOut(route.method, envelope.result))}\n\n`;
    },
    refuse: (call, _id, refusal) => sendJson(call.res, refusal.status, refusalObject(refusal), refusal.headers),
  };
}

/** One request to `{base}/a2a/{slug}/v1/{path}` of a 0.3 REST client. */
export async function serveA2aRestV03(call: Call, principal: Principal, slug: string, path: string, body: unknown): Promise<void> {
  const target = await resolveA2aTarget(call.services.agents, principal, slug);
  const httpMethod = call.req.method ?? 'GET';
  const query = new URLSearchParams((call.req.url ?? '').split('?')[1] ?? '');
  let route: V03Route | undefined;
  try {
    route = v03RestRoute(httpMethod, path, query, body);
  } catch {
    route = undefined; // a malformed escape in a segment: no such route
  }
  if (!route) {
    const refusal = new A2aRefusal(404, RPC.methodNotFound, `${httpMethod} /v1/${path} is not a route of the A2A 0.3 HTTP+JSON transport`, { type: 'not_found_error', code: 'a2a_route_not_found' });
    sendJson(call.res, refusal.status, refusalObject(refusal));
    return;
  }
  await relayA2aRequest(call, principal, target, { id: randomUUID(), method: route.method, params: route.params }, { route: `${httpMethod} /v1/${path}`, body: body ?? null }, v03Binding(route));
}
