import { timingSafeEqual } from 'node:crypto';
import { ApiError, UnauthorizedError } from '../core/errors.js';
import { renderReferencePage } from './reference-page.js';
import { loadSpec, specText } from '../core/spec-document.js';
import { GW_VERSION } from '../core/version.js';
import { STREAMED, type Handler } from './types.js';

let apiVersion: string | undefined;

/** The release and the API's version (the spec's info.version), each named: they change separately. */
export const getHealth: Handler = async () => {
  apiVersion ??= loadSpec().info.version;
  return { body: { status: 'ok', version: GW_VERSION, api_version: apiVersion } };
};

export const getReadiness: Handler = async (_c, call) => {
  const { store, redis, lifecycle, requestLogs } = call.services;
  const checks: Record<string, boolean> = {};
  checks.store = await store.ping().then(
    () => true,
    () => false,
  );
  if (redis) {
    checks.redis = await redis.ping().then(
      () => true,
      () => false,
    );
  }
  // The request log is behind (store down or slower than the traffic): send this instance less.
  if (requestLogs.behind) checks.request_log = !requestLogs.behind();
  // A stopping instance fails readiness first, so load balancers stop sending while it still serves.
  if (lifecycle.stopping) return { status: 503, body: { status: 'shutting_down', checks } };
  const ready = Object.values(checks).every(Boolean);
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
};

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** On the main port only with GW_METRICS_TOKEN; the metrics listener (GW_METRICS_PORT) needs none. */
export const getMetrics: Handler = async (c, call) => {
  const { metrics, config } = call.services;
  const token = config.metrics.token;
  if (!metrics || token === undefined) {
    throw new ApiError(404, 'metrics_not_served_here', 'Metrics are served on this port only when GW_METRICS_TOKEN is set (or on GW_METRICS_PORT)', 'not_found_error');
  }
  const given = String(c.request.headers.authorization ?? '').match(/^Bearer\s+(.+)$/i)?.[1] ?? '';
  if (!sameSecret(given, token)) throw new UnauthorizedError('GET /metrics needs Authorization: Bearer <GW_METRICS_TOKEN>', 'invalid_metrics_token');
  const text = await metrics.render();
  call.res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text) });
  call.res.end(text);
  return STREAMED;
};

export const getOpenApiDocument: Handler = async (_c, call) => {
  const text = specText();
  call.res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  call.res.end(text);
  return STREAMED;
};

let referencePage: string | undefined;

export const getApiReference: Handler = async (_c, call) => {
  referencePage ??= renderReferencePage(loadSpec());
  call.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(referencePage) });
  call.res.end(referencePage);
  return STREAMED;
};

/** HEAD /: Claude Code probes its base URL once, without credentials, before its first call. */
export const probeRoot: Handler = async (_c, call) => {
  call.res.writeHead(200);
  call.res.end();
  return STREAMED;
};
