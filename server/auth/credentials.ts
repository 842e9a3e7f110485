import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { looksLikeJwt, type JwtAuthenticator } from './jwt/jwt-authenticator.js';
import type { OAuthTokenAuthenticator } from './oauth-token-authenticator.js';
import { TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import type { Principal } from '../../core/auth/principal.js';
import type { ScimTokenAuthenticator } from './scim-token-authenticator.js';
import type { SessionAuthenticator } from './session-authenticator.js';
import { CSRF_HEADER, sessionCookieOf } from '../../core/auth/session-cookie.js';
import type { Credentials } from '../../core/auth/credentials.js';

export interface CredentialResolvers {
  apiKeys: ApiKeyAuthenticator;
  /** Absent when JWT_JWKS_URL is not set: then nothing is treated as a JWT. */
  jwt: JwtAuthenticator | undefined;
  sessions: SessionAuthenticator;
  scimTokens: ScimTokenAuthenticator;
  oauthTokens: OAuthTokenAuthenticator;
}

/**
 * Credentials over gw's authenticators. A token is told apart by its shape before any lookup: gw's
 * own prefixed tokens, a JWT (only when JWT is configured), else an API key, so the API-key path
 * costs what it always did.
 */
export class Authenticators implements Credentials {
  constructor(private readonly resolvers: CredentialResolvers) {}

  get sessions(): SessionAuthenticator {
    return this.resolvers.sessions;
  }

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

  fromCookie(headers: IncomingHttpHeaders, method: string): Promise<Principal> | undefined {
    const token = sessionCookieOf(headers);
    if (!token) return undefined;
    const csrf = headers[CSRF_HEADER];
    return this.resolvers.sessions.authenticate(token, method, Array.isArray(csrf) ? csrf[0] : csrf);
  }
}
