import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Call } from '../../core/call.js';
import type { Principal } from '../../core/auth/principal.js';
import type { Services } from '../../core/services.js';

/** Headers a batch keeps from its create request: what selects and configures the provider, not transport or gw credentials. */
const NOT_KEPT = new Set(['host', 'connection', 'content-length', 'content-type', 'transfer-encoding', 'accept-encoding', 'cookie', 'x-gw-api-key', 'x-gw-csrf-token', 'x-gw-trace-id', 'traceparent', 'tracestate']);

export function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_KEPT.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

export type StoredPrincipal = Omit<Principal, 'scopes'> & { scopes: string[] };

export function storedPrincipal(principal: Principal): StoredPrincipal {
  return { ...principal, scopes: [...principal.scopes] };
}

/**
 * A gateway call for one batch line: the batch creator's principal and headers, no client
 * connection. The chat pipeline runs on it as on a request (limits, guardrails, routing, logs).
 */
export function lineCall(services: Services, principal: StoredPrincipal, headers: Record<string, string>, endpoint: string): Call {
  const res = Object.assign(new EventEmitter(), {
    writableFinished: false,
    headersSent: false,
    setHeader: () => undefined,
  }) as unknown as ServerResponse;
  const req = { method: 'POST', url: endpoint, headers: { ...headers }, socket: { remoteAddress: '' } } as unknown as IncomingMessage;
  return {
    traceId: randomUUID(),
    req,
    res,
    ip: '',
    startedAt: services.now(),
    services,
    principal: { ...principal, scopes: new Set(principal.scopes) },
    route: `POST ${endpoint} (batch line)`,
    trace: undefined,
  };
}
