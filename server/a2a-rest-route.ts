/**
 * Routes the A2A door's HTTP+JSON binding: `{base}/a2a/{slug}/{route}` (1.0, tenant-prefixed or
 * not) and `{base}/a2a/{slug}/v1/{route}` (0.3), where the route (the
 * spec's `a2aRestPath`) may hold slashes (`tasks/{id}/pushNotificationConfigs/{configId}`), which
 * the spec router's one-segment parameters cannot match. Runs the spec's operation for the method
 * (security, scope, validation and the handler as usual) with both path parameters.
 */
import type { IncomingMessage } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import { A2A_VERSION_HEADER } from '../gateway/a2a/protocol.js';
import { isV03RestRoute } from '../gateway/a2a/rest-v03-binding.js';
import { operationRunner, type HotOperation } from './hot-operations.js';

/** The 1.0 binding's operations, and 0.3's (under `v1/`), by HTTP method. */
const OPERATIONS: Record<string, string> = { GET: 'getA2aRest', POST: 'postA2aRest', DELETE: 'deleteA2aRest' };
const V03_OPERATIONS: Record<string, string> = { GET: 'getA2aRestV03', POST: 'postA2aRestV03', DELETE: 'deleteA2aRestV03' };

/** `/a2a/{slug}/` followed by anything but the card: a route of either generation's HTTP+JSON binding, tenant-prefixed or not. */
const REST_PATH = /^\/a2a\/([^/?]+)\/((?!\.well-known\/)[^?]+)/;

/** Any path below an agent's gateway URL but its card: the spec's `{agentSlug}/{a2aRestPath}`, a route of the HTTP+JSON binding or not. */
const BELOW_AGENT = /^\/a2a\/[^/?]*\/(?!\.well-known\/)/;

/** Whether a request is (or would be) one of the A2A door's HTTP+JSON routes, its errors in that binding's shape; a POST to the agent's URL itself is JSON-RPC. */
export const isA2aRestPath = (method: string | undefined, path: string) => BELOW_AGENT.test(path) && (method !== 'POST' || !/^\/a2a\/[^/?]*\/?$/.test(path));

/** Whether such a request is 0.3's transport (rest-v03-binding.ts says how they are told apart), its errors in 0.3's shape. */
export const isA2aRestV03Request = (req: IncomingMessage) => {
  const found = /^\/a2a\/[^/?]*\/(v1\/[^?]*)/.exec(req.url ?? '');
  return found !== null && isV03RestRoute(found[1]!, req.headers[A2A_VERSION_HEADER]);
};

export interface A2aRestRoute {
  match(req: IncomingMessage): { run: HotOperation; params: Record<string, string> } | undefined;
}

export function createA2aRestRoute(api: OpenAPIBackend): A2aRestRoute {
  const runnersOf = (operations: Record<string, string>) => {
    const runners = new Map<string, HotOperation>();
    for (const [method, operationId] of Object.entries(operations)) {
      const operation = api.getOperation(operationId);
      if (!operation) throw new Error(`operation ${operationId} is not in the spec`);
      runners.set(method, operationRunner(api, operation));
    }
    return runners;
  };
  const v1 = runnersOf(OPERATIONS);
  const v03 = runnersOf(V03_OPERATIONS);
  return {
    match(req) {
      const found = REST_PATH.exec(req.url ?? '');
      if (!found) return undefined;
      const legacy = isV03RestRoute(found[2]!, req.headers[A2A_VERSION_HEADER]);
      const run = (legacy ? v03 : v1).get(req.method ?? 'GET');
      if (!run) return undefined;
      try {
        return { run, params: { agentSlug: decodeURIComponent(found[1]!), a2aRestPath: legacy ? found[2]!.slice('v1/'.length) : found[2]! } };
      } catch {
        return undefined; // malformed escapes: the general route answers them
      }
    },
  };
}
