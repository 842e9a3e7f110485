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

/** Whether a request path is one of the A2A door's HTTP+JSON routes (its errors take that binding's shape). */
export const isA2aRestPath = (path: string) => REST_PATH.test(path);

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
