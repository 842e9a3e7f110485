import { CSRF_HEADER } from '../../core/auth/session-cookie.js';
import { SESSIONS_TOPIC } from '../../core/auth/topics.js';
import type { Store } from '../../store/store.js';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import { hashOpaqueToken } from '../../core/auth/opaque-token.js';
import type { Principal } from '../../core/auth/principal.js';
import { PrincipalCache } from './principal-cache.js';
import { userPrincipal } from './user-principal.js';


const SAFE_METHODS = new Set(['get', 'head', 'options']);

/** Resolves the console session cookie to its user's principal; writes need the CSRF header too. */
export class SessionAuthenticator {
  private readonly cache: PrincipalCache<{ csrfToken: string }>;

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
    private readonly now: () => number,
  ) {
    this.cache = new PrincipalCache(bus, SESSIONS_TOPIC);
  }

  async authenticate(token: string, method: string, csrfHeader: string | undefined): Promise<Principal> {
    const entry = await this.cache.resolve(hashOpaqueToken(token), this.now(), () => this.load(token));
    if (!entry) throw new UnauthorizedError('The session has ended: sign in again', 'invalid_session');
    if (!SAFE_METHODS.has(method.toLowerCase()) && csrfHeader !== entry.extra.csrfToken) {
      throw new ForbiddenError(`A write with a session cookie needs the session's CSRF token in ${CSRF_HEADER}`, 'csrf_token_mismatch');
    }
    return entry.principal;
  }

  /** The CSRF token of a live session (GET /v1/auth/self hands it to the console). */
  async csrfTokenOf(token: string): Promise<string | undefined> {
    return (await this.cache.resolve(hashOpaqueToken(token), this.now(), () => this.load(token)))?.extra.csrfToken;
  }

  private async load(token: string) {
    const session = await this.store.sessions.findByTokenHash(hashOpaqueToken(token));
    if (!session || session.revoked_at !== null) return undefined;
    const expiresAt = Date.parse(session.expires_at);
    if (expiresAt <= this.now()) return undefined;
    const user = await this.store.users.get(session.organisation_id, session.user_id);
    const principal = user && (await userPrincipal(this.store, user, { credential: 'session', validUntil: expiresAt, credentialId: session.id }));
    return principal ? { principal, extra: { csrfToken: session.csrf_token } } : undefined;
  }
}
