import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { redirectUriProblem } from '../../core/auth/oauth/redirect-uris.js';
import { oauthError } from '../../core/protocol-errors.js';
import { allScopes } from '../../core/scopes.js';
import { body, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';

/**
 * RFC 7591 dynamic client registration, open as MCP expects. Public clients (auth method none,
 * the default) rely on PKCE; confidential ones get a secret, shown once and stored hashed.
 */
export const registerOAuthClient: Handler = async (c, call) => {
  const input = body<'registerOAuthClient'>(c);
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw oauthError(400, 'invalid_redirect_uri', problem);
  }
  const known = new Set(allScopes());
  const unknown = (input.scope ?? '').split(' ').filter((scope) => scope && !known.has(scope));
  if (unknown.length) throw oauthError(400, 'invalid_client_metadata', `Unknown scopes: ${unknown.join(', ')}`);
  const method = input.token_endpoint_auth_method ?? 'none';
  const secret = method === 'none' ? undefined : newOpaqueToken(TOKEN_PREFIXES.oauthClientSecret);
  const grantTypes = input.grant_types ?? ['authorization_code', 'refresh_token'];
  const { redirect_uris: _u, client_name: _n, token_endpoint_auth_method: _m, grant_types: _g, response_types: _r, scope: _s, ...metadata } = input as Record<string, unknown>;
  const client = await call.services.store.oauth.createClient(
    {
      client_name: input.client_name ?? null,
      redirect_uris: input.redirect_uris,
      grant_types: grantTypes,
      token_endpoint_auth_method: method,
      secret_hash: secret ? hashOpaqueToken(secret) : null,
      scope: input.scope ?? null,
      metadata,
    },
    isoNow(call),
  );
  return {
    status: 201,
    headers: { 'cache-control': 'no-store' },
    body: {
      ...metadata,
      client_id: client.id,
      client_id_issued_at: Math.floor(Date.parse(client.created_at) / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...(client.client_name ? { client_name: client.client_name } : {}),
      redirect_uris: client.redirect_uris,
      grant_types: client.grant_types,
      response_types: ['code'],
      token_endpoint_auth_method: method,
      ...(client.scope ? { scope: client.scope } : {}),
    },
  };
};
