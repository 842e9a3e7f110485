import type { IncomingMessage, ServerResponse } from 'node:http';
import { ForbiddenError, UnauthorizedError } from './errors.js';
import type { Principal } from './auth/principal.js';
import type { RequestTrace, Services } from './services.js';
import type { EffectiveSecurity } from './security/settings.js';

/** One request as handlers see it: the raw exchange, who is calling, and the services. */
export interface Call {
  readonly traceId: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ip: string;
  /** Epoch ms at arrival. */
  readonly startedAt: number;
  readonly services: Services;
  principal: Principal | undefined;
  /** The matched operation as `METHOD /path/{template}`, once routing has run (metrics, span names). */
  route?: string;
  /** The request's server span, when tracing is on. */
  trace?: RequestTrace;
  /** The security_settings of the caller's workspace (organisation-wide callers: the organisation's), once authenticated. */
  security?: EffectiveSecurity;
}

export function principalOf(call: Call): Principal {
  if (!call.principal) throw new UnauthorizedError();
  return call.principal;
}

export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) {
    throw new ForbiddenError(`This key lacks the ${scope} scope`, 'missing_scope');
  }
}

/** `x-gw-key-kinds`: which kinds of key (organisation admin keys, workspace keys) may call an operation at all. */
export function requireKeyKind(principal: Principal, kinds: readonly string[]): void {
  if (!kinds.includes(principal.keyType)) {
    const allowed = kinds.includes('organisation') ? 'an organisation (admin) key' : 'a workspace key';
    throw new ForbiddenError(`This operation needs ${allowed}`, 'key_kind_not_allowed');
  }
}
