import { createHash } from 'node:crypto';
import { sessionCookieOf } from '../../core/auth/session-cookie.js';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { DEFAULT_OAUTH_SCOPE } from '../../core/auth/oauth/metadata.js';
import { redirectUriMatches } from '../../core/auth/oauth/redirect-uris.js';
import { CSRF_HEADER } from '../../core/auth/session-cookie.js';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import { ApiError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.js';
import { allScopes } from '../../core/scopes.js';
import type { OAuthAuthorization, OAuthClient } from '../../store/repositories/oauth.js';
import { body, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';

/** How long a user has to consent, and a client to redeem its code. */
const CONSENT_WINDOW_MS = 10 * 60_000;

function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

const redirect = (location: string) => ({ status: 302, headers: { location, 'cache-control': 'no-store' } });

/**
 * Checks the request; errors about the client or its redirect_uri are answered here (never sent
 * to an unverified URI), the rest go back to the client. A valid request waits for consent.
 */
export const authorizeOAuth: Handler = async (c, call) => {
  const input = query<'authorizeOAuth'>(c);
  const { store, config, now } = call.services;
  const client = input.client_id ? await store.oauth.getClient(input.client_id) : undefined;
  if (!client) throw new ValidationError('Unknown client_id', 'client_id', 'invalid_client');
  const redirectUri = input.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (!redirectUri || !client.redirect_uris.some((registered) => redirectUriMatches(registered, redirectUri))) {
    throw new ValidationError('redirect_uri is not one the client registered', 'redirect_uri', 'invalid_redirect_uri');
  }
  const back = (error: string, description: string) =>
    redirect(withParams(redirectUri, { error, error_description: description, state: input.state, iss: config.publicUrl }));
  if (input.response_type !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported');
  if (!input.code_challenge || input.code_challenge_method !== 'S256') return back('invalid_request', 'PKCE with code_challenge_method=S256 is required');
  if (!/^[A-Za-z0-9_-]{43}$/.test(input.code_challenge)) return back('invalid_request', 'code_challenge is not a base64url SHA-256');
  const known = new Set(allScopes());
  const scopes = (input.scope ?? client.scope ?? DEFAULT_OAUTH_SCOPE).split(' ').filter(Boolean);
  if (scopes.length === 0 || scopes.some((scope) => !known.has(scope))) return back('invalid_scope', 'Unknown scope');

  const authorization = await store.oauth.createAuthorization(
    {
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: [...new Set(scopes)].join(' '),
      state: input.state ?? null,
      code_challenge: input.code_challenge,
      resource: input.resource ?? null,
      expires_at: new Date(now() + CONSENT_WINDOW_MS).toISOString(),
    },
    isoNow(call),
  );
  return redirect(`${config.publicUrl}/oauth/consent?authorization_id=${authorization.id}`);
};

async function pendingAuthorization(call: Call, id: string): Promise<{ authorization: OAuthAuthorization; client: OAuthClient }> {
  const { store, now } = call.services;
  const authorization = await store.oauth.getAuthorization(id);
  const client = authorization && (await store.oauth.getClient(authorization.client_id));
  if (!authorization || !client || Date.parse(authorization.expires_at) <= now()) throw new NotFoundError('Authorization request', id);
  if (authorization.status !== 'pending') throw new ConflictError('This authorization request has been answered already', 'authorization_answered');
  return { authorization, client };
}

/** The signed-in user behind the session cookie, or undefined (reads never need the CSRF token). */
async function sessionUser(call: Call): Promise<{ principal: Principal; token: string } | undefined> {
  const token = sessionCookieOf(call.req.headers);
  if (!token) return undefined;
  try {
    return { principal: await call.services.credentials.sessions.authenticate(token, 'get', undefined), token };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A minimal consent page (the console may show its own and post the same decision). */
export const getOAuthConsent: Handler = async (c, call) => {
  const id = query<'getOAuthConsent'>(c).authorization_id;
  const { config } = call.services;
  const { authorization, client } = await pendingAuthorization(call, id);
  const signedIn = await sessionUser(call);
  if (!signedIn) {
    const back = `/oauth/consent?authorization_id=${encodeURIComponent(id)}`;
    return redirect(`${config.publicUrl}/v1/auth/sso/login?return_to=${encodeURIComponent(back)}`);
  }
  const csrf = (await call.services.credentials.sessions.csrfTokenOf(signedIn.token))!;
  const name = escapeHtml(client.client_name ?? client.id);
  const scopes = authorization.scope.split(' ').map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  const hidden = `<input type="hidden" name="authorization_id" value="${escapeHtml(id)}"><input type="hidden" name="csrf_token" value="${escapeHtml(csrf)}">`;
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Authorize ${name}</title></head><body>
<h1>${name} wants access to gw</h1>
<p>Signed in as ${escapeHtml(signedIn.principal.subject ?? '')}. It asks for:</p><ul>${scopes}</ul>
<p>It will be sent back to ${escapeHtml(new URL(authorization.redirect_uri).origin)}.</p>
<form method="post" action="/oauth/postAuthorizeConsent">${hidden}<button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></form>
</body></html>`;
  return {
    body: page,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'" },
  };
};

/**
 * The user's decision. The session is checked here, with its CSRF token from the form field or
 * the header: the consent form is a plain HTML form, which cannot set headers.
 */
export const postAuthorizeConsent: Handler = async (c, call) => {
  const input = body<'postAuthorizeConsent'>(c);
  const { store, config, now } = call.services;
  const signedIn = await sessionUser(call);
  if (!signedIn) throw new UnauthorizedError('Sign in to answer an authorization request', 'invalid_session');
  const header = call.req.headers[CSRF_HEADER];
  const csrf = input.csrf_token ?? (Array.isArray(header) ? header[0] : header);
  if (!csrf || csrf !== (await call.services.credentials.sessions.csrfTokenOf(signedIn.token))) {
    throw new ForbiddenError('The consent must carry the session CSRF token', 'csrf_token_mismatch');
  }
  const { authorization } = await pendingAuthorization(call, input.authorization_id);
  const user = signedIn.principal;
  let location: string;
  if (input.decision === 'approve') {
    const code = newOpaqueToken(TOKEN_PREFIXES.oauthCode);
    const decided = await store.oauth.decide(authorization.id, {
      status: 'approved',
      organisation_id: user.organisationId,
      user_id: user.userId,
      code_hash: hashOpaqueToken(code),
      expires_at: new Date(now() + config.oauth.codeTtlMs).toISOString(),
    });
    if (!decided) throw new ConflictError('This authorization request has been answered already', 'authorization_answered');
    location = withParams(authorization.redirect_uri, { code, state: authorization.state, iss: config.publicUrl });
  } else {
    await store.oauth.decide(authorization.id, { status: 'denied', organisation_id: user.organisationId, user_id: user.userId, code_hash: null, expires_at: authorization.expires_at });
    location = withParams(authorization.redirect_uri, { error: 'access_denied', error_description: 'The user refused', state: authorization.state, iss: config.publicUrl });
  }
  const form = /^application\/x-www-form-urlencoded/i.test(call.req.headers['content-type'] ?? '');
  return form ? redirect(location) : { body: { redirect_to: location }, headers: { 'cache-control': 'no-store' } };
};

/** RFC 7636: BASE64URL(SHA256(verifier)) must equal the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier) && createHash('sha256').update(verifier).digest('base64url') === challenge;
}
