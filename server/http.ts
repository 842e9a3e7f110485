import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import { MAX_BODY_BYTES, readJsonBody } from '../core/body.js';
import type { Call } from '../core/call.js';
import { ApiError, InternalError, ValidationError, errorBody } from '../core/errors.js';
import { createHotOperations } from './hot-operations.js';
import { createPassThroughRoute } from './pass-through-route.js';
import { createA2aRestRoute, isA2aRestPath, isA2aRestV03Request } from './a2a-rest-route.js';
import { errorFormatOf, inErrorFormat, type ErrorFormat } from '../core/protocol-errors.js';
import { redactedApiError, redactedError, requestSecrets } from '../core/request-secrets.js';
import { sendJson } from '../core/respond.js';
import { isMcpGatewayPath, refusedHost } from '../gateway/mcp/host-check.js';
import type { Services } from '../core/services.js';
import { remoteParentOf, type RemoteParent } from '../gateway/telemetry/trace-context.js';
import { AddressRanges, clientAddress } from '../core/security/ip-ranges.js';

function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/** The caller's x-gw-trace-id, else the trace id of its W3C traceparent, else a new one. */
function traceIdOf(req: IncomingMessage, remote: RemoteParent | undefined): string {
  const given = req.headers['x-gw-trace-id'];
  if (typeof given === 'string' && given.length > 0 && given.length <= 255) return given;
  return remote?.traceId ?? randomUUID();
}

/**
 * The one entry for every request, whether it came through express (control plane) or
 * straight from the http server (gateway hot path): body, trace id, spec routing, errors.
 */
export function createDispatcher(api: OpenAPIBackend, services: Services) {
  const hot = createHotOperations(api);
  const passThrough = createPassThroughRoute(api);
  const a2aRest = createA2aRestRoute(api);
  const { metrics, tracing } = services;
  const trustedProxies = new AddressRanges(services.config.trustedProxies);
  /** Hot operation, pass-through, or the spec router. */
  async function route(req: IncomingMessage, call: Call): Promise<void> {
    const hotOperation = hot.match(req.method, req.url) ?? a2aRest.match(req);
    // The pass-through streams its body upstream: matched before anything reads it.
    const proxied = hotOperation ? undefined : passThrough.match(req);
    if (hotOperation) await hotOperation.run(call, await readJsonBody(req, MAX_BODY_BYTES), hotOperation.params);
    else if (proxied) {
      assertWellEncoded(req.url ?? '/');
      await proxied(call, undefined);
    } else {
      const body = await readJsonBody(req, MAX_BODY_BYTES);
      assertWellEncoded(req.url ?? '/');
      await api.handleRequest({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers as Record<string, string>, body }, call);
    }
  }
  return async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = remoteParentOf(req.headers);
    const traceId = traceIdOf(req, remote);
    res.setHeader('x-gw-trace-id', traceId);
    const startedAt = services.now();
    const call: Call = {
      traceId,
      req,
      res,
      ip: clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trustedProxies),
      startedAt,
      services,
      principal: undefined,
      // Set here, even when unused, so every call object has one shape.
      route: undefined,
      security: undefined,
      trace: tracing ? tracing.startRequest(req.method ?? 'GET', pathOf(req.url), traceId, remote, startedAt, (text) => requestSecrets(call).text(text)) : undefined,
    };
    try {
      const refusal = isMcpGatewayPath(req.url) ? refusedHost(req, services.config.publicUrl, services.config.mcpAllowedHosts) : undefined;
      if (refusal) sendJson(res, refusal.status, { jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null });
      else await route(req, call);
    } catch (error) {
      // Errors raised before routing (a bad body, bad encoding) still answer in a SCIM or OAuth operation's own shape.
      sendError(call, inErrorFormat(errorFormatOfRequest(api, req), error));
    }
    if (metrics || call.trace) {
      const endedAt = services.now();
      metrics?.observeHttp(call.route ?? 'unmatched', res.statusCode, (endedAt - startedAt) / 1000);
      call.trace?.end(res.statusCode, endedAt);
    }
  };
}

/**
 * The x-gw-error-format of the operation a request is for; everything under the SCIM base URL
 * speaks SCIM, unknown paths included (and every POST under /a2a/ JSON-RPC). Only used on the error path.
 */
function errorFormatOfRequest(api: OpenAPIBackend, req: IncomingMessage): ErrorFormat | undefined {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path.startsWith('/v1/scim/v2/')) return 'scim';
  if (isA2aRestPath(req.method, path)) return isA2aRestV03Request(req) ? 'a2a-rest-v03' : 'a2a-rest';
  // Any other POST under the A2A door's base is an A2A JSON-RPC client's call, even to no agent (`/a2a/`).
  if (req.method === 'POST' && path.startsWith('/a2a/')) return 'jsonrpc';
  try {
    return errorFormatOf(api.router.matchOperation({ method: req.method ?? 'GET', path, headers: {} }));
  } catch {
    return undefined;
  }
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
