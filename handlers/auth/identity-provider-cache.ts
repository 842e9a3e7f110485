/**
 * Identity providers' discovered configurations, kept per organisation's SSO settings. The sign-in
 * link needs no credentials, so an anonymous caller must not cost gw an outbound fetch per call:
 * a configuration is kept for DISCOVERY_TTL_MS, a failed discovery for FAILURE_TTL_MS, and callers
 * arriving while one discovery runs share it. Settings saved again (a new updated_at) discover anew.
 */
import type { Services } from '../../core/services.js';
import { ApiError } from '../../core/errors.js';
import type { SsoSettings } from '../../store/repositories/sso.js';
import { discoverIdentityProvider, type oidc } from './oidc-client.js';

const DISCOVERY_TTL_MS = 10 * 60_000;
const FAILURE_TTL_MS = 30_000;
/** Organisations with SSO on one deployment; past this, the oldest entries go first. */
const MAX_ENTRIES = 1_000;

interface Entry {
  until: number;
  result: Promise<oidc.Configuration>;
}

const caches = new WeakMap<Services, Map<string, Entry>>();

function cacheOf(services: Services): Map<string, Entry> {
  let cache = caches.get(services);
  if (!cache) caches.set(services, (cache = new Map()));
  return cache;
}

/** The identity provider of saved settings, discovered at most once per TTL; a failure is a 502 naming its cause. */
export function identityProviderOf(services: Services, settings: SsoSettings): Promise<oidc.Configuration> {
  const cache = cacheOf(services);
  const key = JSON.stringify([settings.organisation_id, settings.issuer, settings.client_id, settings.updated_at]);
  const now = services.now();
  const cached = cache.get(key);
  if (cached && cached.until > now) return cached.result;
  const entry: Entry = { until: Number.POSITIVE_INFINITY, result: discover(services, settings, settings.issuer, null) };
  cache.delete(key);
  cache.set(key, entry);
  for (const [oldKey, old] of cache) if (cache.size > MAX_ENTRIES || old.until <= now) cache.delete(oldKey);
  entry.result.then(
    () => (entry.until = services.now() + DISCOVERY_TTL_MS),
    () => (entry.until = services.now() + FAILURE_TTL_MS),
  );
  return entry.result;
}

/**
 * Discovers the identity provider of settings about to be saved; `param` names the field in the
 * error. An address the outbound guard refuses stays that guard's 400 at save.
 */
export async function checkIdentityProvider(
  services: Services,
  settings: Pick<SsoSettings, 'issuer' | 'client_id' | 'client_secret'>,
  param: string,
): Promise<void> {
  await discover(services, settings, settings.issuer, param);
}

async function discover(
  services: Services,
  settings: Pick<SsoSettings, 'issuer' | 'client_id' | 'client_secret'>,
  issuer: string,
  param: string | null,
): Promise<oidc.Configuration> {
  const { secrets, identityFetch, config } = services;
  try {
    return await discoverIdentityProvider({
      issuer,
      clientId: settings.client_id,
      clientSecret: settings.client_secret === null ? null : secrets.open(settings.client_secret),
      fetch: identityFetch,
      trustedHosts: config.trustedCustomHosts,
    });
  } catch (error) {
    if (param !== null && error instanceof ApiError && error.status === 400) throw error;
    throw new ApiError(502, 'identity_provider_unavailable', `The identity provider's discovery at ${issuer} failed: ${causeOf(error)}`, 'upstream_error', {
      param,
      cause: error,
    });
  }
}

/** The failure in words: openid-client's message with what it wraps (an HTTP status, a network error code, the issuer it found). */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = error.cause as { status?: unknown; code?: unknown; message?: unknown; body?: { issuer?: unknown } } | undefined;
  if (inner && typeof inner.status === 'number') return `${error.message} (HTTP ${inner.status})`;
  if (inner && typeof inner.body?.issuer === 'string') return `${error.message} (the document names ${inner.body.issuer})`;
  if (inner && typeof inner.code === 'string') return `${error.message} (${inner.code})`;
  if (inner && typeof inner.message === 'string') return `${error.message} (${inner.message})`;
  return error.message;
}
