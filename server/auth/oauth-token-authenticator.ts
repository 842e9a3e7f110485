import { OAUTH_GRANTS_TOPIC } from '../../core/auth/topics.js';
import type { Store } from '../../store/store.js';
import { UnauthorizedError } from '../../core/errors.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import { hashOpaqueToken } from '../../core/auth/opaque-token.js';
import type { Principal } from '../../core/auth/principal.js';
import { PrincipalCache } from './principal-cache.js';
import { userPrincipal } from './user-principal.js';


/** Resolves an access token gw's authorization server issued: its user, cut to the scopes granted to the client. */
export class OAuthTokenAuthenticator {
  private readonly cache: PrincipalCache;

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
    private readonly now: () => number,
  ) {
    this.cache = new PrincipalCache(bus, OAUTH_GRANTS_TOPIC);
  }

  async authenticate(token: string): Promise<Principal> {
    const entry = await this.cache.resolve(hashOpaqueToken(token), this.now(), () => this.load(token));
    if (!entry) throw new UnauthorizedError('Invalid or expired OAuth access token', 'invalid_token');
    return entry.principal;
  }

  private async load(token: string) {
    const record = await this.store.oauth.findToken(hashOpaqueToken(token));
    if (!record || record.kind !== 'access' || record.revoked_at !== null) return undefined;
    const expiresAt = Date.parse(record.expires_at);
    if (expiresAt <= this.now()) return undefined;
    const user = await this.store.users.get(record.organisation_id, record.user_id);
    const principal =
      user &&
      (await userPrincipal(this.store, user, {
        credential: 'oauth',
        scopes: record.scope.split(' ').filter(Boolean),
        validUntil: expiresAt,
        credentialId: record.family_id,
        oauthClientId: record.client_id,
        oauthResource: record.resource ?? undefined,
      }));
    return principal ? { principal, extra: undefined } : undefined;
  }
}
