import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import { readJsonBody } from './body.js';
import type { Call } from './call.js';
import { ApiError, InternalError, ValidationError, errorBody } from './errors.js';
import { createHotOperations } from './hot-operations.js';
import { redactedApiError, redactedError } from './request-secrets.js';
import { sendJson } from './respond.js';
import type { Services } from './services.js';

/** Largest request body gw reads (images and files travel inline as base64). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function traceIdOf(req: IncomingMessage): string {
  const given = req.headers['x-gw-trace-id'];
  return typeof given === 'string' && given.length > 0 && given.length <= 255 ? given : randomUUID();
}

/**
 * The one entry for every request, whether it came through express (control plane) or
 * straight from the http server (gateway hot path): body, trace id, spec routing, errors.
 */
export function createDispatcher(api: OpenAPIBackend, services: Services) {
  const hot = createHotOperations(api);
  return async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const traceId = traceIdOf(req);
    res.setHeader('x-gw-trace-id', traceId);
    const call: Call = {
      traceId,
      req,
      res,
      ip: req.socket.remoteAddress ?? '',
      startedAt: services.now(),
      services,
      principal: undefined,
    };
    try {
      const body = await readJsonBody(req, MAX_BODY_BYTES);
      const hotOperation = hot.get(`${req.method} ${req.url}`);
      if (hotOperation) await hotOperation(call, body);
      else {
        assertWellEncoded(req.url ?? '/');
        await api.handleRequest({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers as Record<string, string>, body }, call);
      }
    } catch (error) {
      sendError(call, error);
    }
  };
}

/**
 * Malformed percent-encoding (`%ff%fe`, `%zz`) would fail deep in routing as a URIError (a 500);
 * it is the client's error. decodeURI checks every escape in the path and query without decoding
 * reserved characters.
 */
function assertWellEncoded(url: string): void {
  try {
    decodeURI(url);
  } catch {
    throw new ValidationError('The request URL has malformed percent-encoding', null, 'invalid_url_encoding');
  }
}

/** Formats any thrown error as the one error body; unknown errors become a 500 that names the trace id. */
export function sendError(call: Call, error: unknown): void {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = redactedApiError(call, error);
  } else {
    call.services.logger.error({ err: redactedError(call, error), traceId: call.traceId }, 'unhandled error');
    apiError = new InternalError(call.traceId);
  }
  if (call.res.headersSent) {
    call.res.end();
    return;
  }
  sendJson(call.res, apiError.status, errorBody(apiError), apiError.headers);
}
