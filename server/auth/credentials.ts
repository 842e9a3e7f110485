import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { looksLikeJwt, type JwtAuthenticator } from './jwt/jwt-authenticator.js';
import type { OAuthTokenAuthenticator } from './oauth-token-authenticator.js';
import { TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import type { Principal } from '../../core/auth/principal.js';
import type { ScimTokenAuthenticator } from './scim-token-authenticator.js';
import { CSRF_HEADER, SESSION_COOKIE, type SessionAuthenticator } from './session-authenticator.js';

export interface CredentialResolvers {
  apiKeys: ApiKeyAuthenticator;
  /** Absent when JWT_JWKS_URL is not set: then nothing is treated as a JWT. */
  jwt: JwtAuthenticator | undefined;
  sessions: SessionAuthenticator;
  scimTokens: ScimTokenAuthenticator;
  oauthTokens: OAuthTokenAuthenticator;
}

/**
 * The one place any credential becomes a Principal. A token is told apart by its shape before any
 * lookup: gw's own prefixed tokens, a JWT (only when JWT is configured), else an API key, so the
 * API-key path costs what it always did.
 */
export class Credentials {
  constructor(readonly resolvers: CredentialResolvers) {}

  /** A token from `x-gw-api-key` or `Authorization: Bearer` (`header` names which, for the error message). */
  fromToken(token: string | undefined, header = 'x-gw-api-key'): Promise<Principal> {
    const { apiKeys, jwt, scimTokens, oauthTokens } = this.resolvers;
    if (token !== undefined) {
      if (token.startsWith('gw')) {
        if (token.startsWith(TOKEN_PREFIXES.oauthAccess)) return oauthTokens.authenticate(token);
        if (token.startsWith(TOKEN_PREFIXES.scim)) return scimTokens.authenticate(token);
      } else if (jwt && looksLikeJwt(token)) {
        return jwt.authenticate(token);
      }
    }
    return apiKeys.authenticate(token, header);
  }

  /** The session cookie, or undefined when the request carries none (a scheme not presented, not a failure). */
  fromCookie(headers: IncomingHttpHeaders, method: string): Promise<Principal> | undefined {
    const token = sessionCookieOf(headers);
    if (!token) return undefined;
    const csrf = headers[CSRF_HEADER];
    return this.resolvers.sessions.authenticate(token, method, Array.isArray(csrf) ? csrf[0] : csrf);
  }
}

/** The gw_session cookie's value, read without parsing every cookie. */
export function sessionCookieOf(headers: IncomingHttpHeaders): string | undefined {
  const cookie = headers.cookie;
  if (!cookie || !cookie.includes(SESSION_COOKIE)) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim()) || undefined;
  }
  return undefined;
}
