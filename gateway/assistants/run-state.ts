/**
 * The execution state a run keeps in the store (StoredRunState): who created it, and the
 * provider-selection headers of its creating request, sealed, so any instance can execute its
 * turns exactly as that request would have been served. The sealed headers are erased when the
 * run ends.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../core/auth/principal.js';
import type { SecretBox } from '../../store/secret-box.js';
import type { StoredRunState } from '../../store/repositories/assistant-runs.js';
import { authorizationIsProviderCredential } from '../resolve/provider-plan.js';

export type { StoredRunState as RunState };

export function storedPrincipal(principal: Principal): Record<string, unknown> {
  return { ...principal, scopes: [...principal.scopes] };
}

export function principalFrom(stored: Record<string, unknown>): Principal {
  return { ...(stored as unknown as Principal), scopes: new Set(stored.scopes as string[]) };
}

/** Never carried into a run: the caller's own gw credential and what only the transport needs. */
const NOT_KEPT = new Set(['x-gw-api-key', 'x-gw-trace-id', 'traceparent', 'tracestate']);

/**
 * The x-gw-* headers that select and shape the provider, plus Authorization only when it carries
 * the provider's key (an inline provider) rather than the gw key.
 */
export function selectionHeaders(headers: IncomingHttpHeaders, model: string): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !name.startsWith('x-gw-') || NOT_KEPT.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorizationIsProviderCredential(headers, model)) kept.authorization = authorization;
  // Cloud vendor headers without the x-gw- prefix (X-Cloud2-LLM-Request-Type).
  const requestType = headers['x-cloud2-llm-request-type'];
  if (typeof requestType === 'string') kept['x-cloud2-llm-request-type'] = requestType;
  return kept;
}

export function sealHeaders(secrets: SecretBox, headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? secrets.seal(JSON.stringify(headers)) : null;
}

export function openHeaders(secrets: SecretBox, sealed: string | null): Record<string, string> {
  return sealed ? (JSON.parse(secrets.open(sealed)) as Record<string, string>) : {};
}
