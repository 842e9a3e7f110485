/**
 * Routes the A2A door's HTTP+JSON binding: `{base}/a2a/{slug}/{route}`, where the route (the
 * spec's `a2aRestPath`) may hold slashes (`tasks/{id}/pushNotificationConfigs/{configId}`), which
 * the spec router's one-segment parameters cannot match. Runs the spec's operation for the method
 * (security, scope, validation and the handler as usual) with both path parameters.
 */
import type { IncomingMessage } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import { operationRunner, type HotOperation } from './hot-operations.js';

const OPERATIONS: Record<string, string> = { GET: 'getA2aRest', POST: 'postA2aRest', DELETE: 'deleteA2aRest' };

/** `/a2a/{slug}/` followed by the first segment of a REST route of A2A 1.0. */
const REST_PATH = /^\/a2a\/([^/?]+)\/((?:message:|tasks|extendedAgentCard)[^?]*)/;

/** Any path below an agent's gateway URL but its card: the spec's `{agentSlug}/{a2aRestPath}`, a route of the HTTP+JSON binding or not. */
const BELOW_AGENT = /^\/a2a\/[^/?]*\/(?!\.well-known\/)/;

/** Whether a request is (or would be) one of the A2A door's HTTP+JSON routes, its errors in that binding's shape; a POST to the agent's URL itself is JSON-RPC. */
export const isA2aRestPath = (method: string | undefined, path: string) => BELOW_AGENT.test(path) && (method !== 'POST' || !/^\/a2a\/[^/?]*\/?$/.test(path));

export interface A2aRestRoute {
  match(req: IncomingMessage): { run: HotOperation; params: Record<string, string> } | undefined;
}

export function createA2aRestRoute(api: OpenAPIBackend): A2aRestRoute {
  const runners = new Map<string, HotOperation>();
  for (const [method, operationId] of Object.entries(OPERATIONS)) {
    const operation = api.getOperation(operationId);
    if (!operation) throw new Error(`operation ${operationId} is not in the spec`);
    runners.set(method, operationRunner(api, operation));
  }
  return {
    match(req) {
      const found = REST_PATH.exec(req.url ?? '');
      const run = found && runners.get(req.method ?? 'GET');
      if (!found || !run) return undefined;
      try {
        return { run, params: { agentSlug: decodeURIComponent(found[1]!), a2aRestPath: found[2]! } };
      } catch {
        return undefined; // malformed escapes: the general route answers them
      }
    },
  };
}
