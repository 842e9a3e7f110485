/**
 * Routes the `/v1/*` pass-through (spec: the operations marked `x-gw-pass-through`, one per
 * method): a request under the prefix that no operation of the spec matches, and that selects a
 * provider (x-gw-provider, x-gw-virtual-key, x-gw-config or x-gw-custom-host) or may name one in
 * its body (a JSON or multipart body's `model: "@slug/..."`), runs the pass-through operation for
 * its method. It is matched before the body is read, so the handler streams the body upstream.
 * Real routes keep their own matching and validation: a path that an operation serves with
 * another method is still a 405, and a path with neither signal is still a 404 (answered by the
 * pass-through once it has read the body's model).
 */
import type { IncomingMessage } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import { selectsProviderByHeader } from '../gateway/resolve/provider-plan.js';
import { JSON_TYPE, MULTIPART_TYPE } from '../core/body.js';
import { operationRunner, type HotOperation } from './hot-operations.js';

/** A body whose `model` may name a saved provider. */
function mayNameProvider(req: IncomingMessage): boolean {
  const contentType = req.headers['content-type'] ?? '';
  return req.method !== 'GET' && req.method !== 'DELETE' && (JSON_TYPE.test(contentType) || MULTIPART_TYPE.test(contentType));
}

export interface PassThroughRoute {
  match(req: IncomingMessage): HotOperation | undefined;
}

export function createPassThroughRoute(api: OpenAPIBackend): PassThroughRoute {
  const byMethod = new Map<string, HotOperation>();
  let prefix: string | undefined;
  for (const operation of api.getOperations()) {
    if ((operation as { 'x-gw-pass-through'?: boolean })['x-gw-pass-through'] !== true) continue;
    if (!operation.path.endsWith('/*')) throw new Error(`pass-through operation ${operation.operationId} must have a path ending in /*`);
    prefix = operation.path.slice(0, -1);
    byMethod.set(operation.method.toUpperCase(), operationRunner(api, operation));
  }

  return {
    match(req) {
      const url = req.url ?? '/';
      if (prefix === undefined || !url.startsWith(prefix)) return undefined;
      const run = byMethod.get(req.method ?? 'GET');
      if (!run || !(selectsProviderByHeader(req.headers) || mayNameProvider(req))) return undefined;
      try {
        const operation = api.router.matchOperation({ method: req.method ?? 'GET', path: url.split('?', 1)[0]!, headers: {} }, true);
        return (operation as { 'x-gw-pass-through'?: boolean })['x-gw-pass-through'] === true ? run : undefined;
      } catch (error) {
        // openapi-backend's strict match: 404 when no operation has the path, 405 when one has it with another method.
        return error instanceof Error && error.message.startsWith('404') ? run : undefined;
      }
    },
  };
}
