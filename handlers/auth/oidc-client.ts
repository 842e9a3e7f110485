import * as oidc from 'openid-client';
import { vetOutboundUrl } from '../../gateway/outbound/url-guard.js';
import type { GuardedFetch } from '../../gateway/outbound/guarded-fetch.js';

export interface OidcClientOptions {
  issuer: string;
  clientId: string;
  /** Null for a public client (PKCE only). */
  clientSecret: string | null;
  /** The outbound guard's fetch: discovery, key sets and the token endpoint are all vetted. */
  fetch: GuardedFetch;
  trustedHosts: readonly string[];
}

/**
 * The identity provider's configuration, discovered through openid-client. Plain http is allowed
 * only for hosts the operator trusts (TRUSTED_CUSTOM_HOSTS: a lab or a test on loopback).
 */
export async function discoverIdentityProvider(options: OidcClientOptions): Promise<oidc.Configuration> {
  const issuer = new URL(options.issuer);
  const vetted = await vetOutboundUrl(issuer.href, { trustedHosts: options.trustedHosts, param: 'issuer', code: 'unsafe_identity_url', resolveNames: false });
  const authentication = options.clientSecret ? oidc.ClientSecretPost(options.clientSecret) : oidc.None();
  return oidc.discovery(issuer, options.clientId, options.clientSecret ?? undefined, authentication, {
    [oidc.customFetch]: options.fetch as oidc.CustomFetch,
    execute: vetted.trusted && issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
  });
}

export { oidc };
