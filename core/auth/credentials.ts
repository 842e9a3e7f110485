import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from './principal.js';

/** Console sessions, as the OAuth consent page signs in with them. */
export interface SessionResolver {
  authenticate(token: string, method: string, csrfHeader: string | undefined): Promise<Principal>;
  csrfTokenOf(token: string): Promise<string | undefined>;
}

/**
 * The one place any credential (API key, JWT, session, SCIM or OAuth token) becomes a Principal.
 * The authenticators behind it need the store, so composition builds it (server/auth/credentials.ts).
 */
export interface Credentials {
  /** A token from `x-gw-api-key` or `Authorization: Bearer` (`header` names which, for the error message). */
  fromToken(token: string | undefined, header?: string): Promise<Principal>;
  /** The session cookie, or undefined when the request carries none (a scheme not presented, not a failure). */
  fromCookie(headers: IncomingHttpHeaders, method: string): Promise<Principal> | undefined;
  readonly sessions: SessionResolver;
}
