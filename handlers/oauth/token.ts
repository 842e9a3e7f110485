import { randomUUID, timingSafeEqual } from 'node:crypto';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { OAUTH_GRANTS_TOPIC } from '../../core/auth/topics.js';
import { redirectUriMatches } from '../../core/auth/oauth/redirect-uris.js';
import type { Call } from '../../core/call.js';
import { oauthError } from '../../core/protocol-errors.js';
import type { OAuthClient } from '../../store/repositories/oauth.js';
import { body, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { pkceMatches } from './authorize.js';

type TokenRequest = ReturnType<typeof body<'exchangeOAuthToken'>>;

const invalidGrant = (description: string) => oauthError(400, 'invalid_grant', description);

/** The calling client: public clients name themselves; confidential ones prove it (client_secret_post or Basic). */
async function authenticateClient(call: Call, input: TokenRequest): Promise<OAuthClient> {
  let clientId = input.client_id;
  let secret = input.client_secret;
  const basic = call.req.headers.authorization?.match(/^Basic\s+(.+)$/i)?.[1];
  if (basic) {
    const [id, pass] = Buffer.from(basic, 'base64').toString('utf8').split(':').map((part) => decodeURIComponent(part ?? ''));
    clientId = id;
    secret = pass;
  }
  const client = clientId ? await call.services.store.oauth.getClient(clientId) : undefined;
  const unauthorized = oauthError(401, 'invalid_client', 'Unknown client or wrong client credentials', { 'www-authenticate': 'Basic realm="gw"' });
  if (!client) throw unauthorized;
  if (client.token_endpoint_auth_method !== 'none') {
    const presented = Buffer.from(hashOpaqueToken(secret ?? ''));
    if (!client.secret_hash || !timingSafeEqual(presented, Buffer.from(client.secret_hash))) throw unauthorized;
  }
  return client;
}

/** A new access token and refresh token in one grant family. */
async function issue(call: Call, grant: { familyId: string; client: OAuthClient; organisationId: string; userId: string; scope: string; resource: string | null }) {
  const { store, config, now } = call.services;
  const access = newOpaqueToken(TOKEN_PREFIXES.oauthAccess);
  const refresh = newOpaqueToken(TOKEN_PREFIXES.oauthRefresh);
  const at = isoNow(call);
  const common = { family_id: grant.familyId, client_id: grant.client.id, organisation_id: grant.organisationId, user_id: grant.userId, scope: grant.scope, resource: grant.resource };
  await store.transaction(async (tx) => {
    await tx.oauth.createToken({ ...common, token_hash: hashOpaqueToken(access), kind: 'access', expires_at: new Date(now() + config.oauth.accessTokenTtlMs).toISOString() }, at);
    await tx.oauth.createToken({ ...common, token_hash: hashOpaqueToken(refresh), kind: 'refresh', expires_at: new Date(now() + config.oauth.refreshTokenTtlMs).toISOString() }, at);
  });
  return {
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: { access_token: access, token_type: 'Bearer' as const, expires_in: Math.floor(config.oauth.accessTokenTtlMs / 1000), refresh_token: refresh, scope: grant.scope },
  };
}

async function fromCode(call: Call, client: OAuthClient, input: TokenRequest) {
  const { store, now } = call.services;
  if (!input.code || !input.code_verifier) throw oauthError(400, 'invalid_request', 'code and code_verifier are required');
  const authorization = await store.oauth.findByCodeHash(hashOpaqueToken(input.code));
  if (!authorization || authorization.client_id !== client.id) throw invalidGrant('Unknown code');
  if (authorization.status !== 'approved' || Date.parse(authorization.expires_at) <= now()) throw invalidGrant('The code has expired or was used');
  if (!input.redirect_uri || !redirectUriMatches(authorization.redirect_uri, input.redirect_uri)) throw invalidGrant('redirect_uri differs from the authorization request');
  if (!pkceMatches(input.code_verifier, authorization.code_challenge)) throw invalidGrant('code_verifier does not match the code_challenge');
  if (!(await store.oauth.spendCode(authorization.id))) throw invalidGrant('The code was used');
  return issue(call, {
    familyId: randomUUID(),
    client,
    organisationId: authorization.organisation_id!,
    userId: authorization.user_id!,
    scope: authorization.scope,
    resource: authorization.resource,
  });
}

/**
 * Refresh token rotation (OAuth 2.1 section 4.3.1): each refresh token works once and is replaced.
 * Presenting a spent one means it leaked: the whole grant is revoked on every instance.
 */
async function fromRefreshToken(call: Call, client: OAuthClient, input: TokenRequest) {
  const { store, bus, now } = call.services;
  if (!input.refresh_token) throw oauthError(400, 'invalid_request', 'refresh_token is required');
  const token = await store.oauth.findToken(hashOpaqueToken(input.refresh_token));
  if (!token || token.kind !== 'refresh' || token.client_id !== client.id) throw invalidGrant('Unknown refresh token');
  if (token.revoked_at !== null || Date.parse(token.expires_at) <= now()) throw invalidGrant('The refresh token has expired or was revoked');
  if (token.used_at !== null || !(await store.oauth.spendRefreshToken(token.id, isoNow(call)))) {
    await store.oauth.revokeFamily(token.family_id, isoNow(call));
    await bus.publish(OAUTH_GRANTS_TOPIC, token.family_id);
    throw invalidGrant('The refresh token was already used; the grant has been revoked');
  }
  const user = await store.users.get(token.organisation_id, token.user_id);
  if (!user || user.status !== 'active') throw invalidGrant('The user is no longer active');
  const held = token.scope.split(' ');
  const wanted = input.scope ? input.scope.split(' ').filter(Boolean) : held;
  if (wanted.some((scope) => !held.includes(scope))) throw oauthError(400, 'invalid_scope', 'A refresh cannot widen the scopes granted');
  return issue(call, { familyId: token.family_id, client, organisationId: token.organisation_id, userId: token.user_id, scope: wanted.join(' '), resource: token.resource });
}

export const exchangeOAuthToken: Handler = async (c, call) => {
  const input = body<'exchangeOAuthToken'>(c);
  const client = await authenticateClient(call, input);
  if (!client.grant_types.includes(input.grant_type)) {
    throw oauthError(400, input.grant_type === 'authorization_code' || input.grant_type === 'refresh_token' ? 'unauthorized_client' : 'unsupported_grant_type', `grant_type ${input.grant_type} is not available to this client`);
  }
  return input.grant_type === 'authorization_code' ? fromCode(call, client, input) : fromRefreshToken(call, client, input);
};
