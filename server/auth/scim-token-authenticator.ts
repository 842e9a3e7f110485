import { SCIM_TOKENS_TOPIC } from '../../core/auth/topics.js';
import type { Store } from '../../store/store.js';
import { UnauthorizedError } from '../../core/errors.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import { hashOpaqueToken } from '../../core/auth/opaque-token.js';
import type { Principal } from '../../core/auth/principal.js';
import { PrincipalCache } from './principal-cache.js';

/** Published with a SCIM token id when it is revoked. */
/** The one scope a SCIM token carries. */
export const SCIM_SCOPE = 'scim.provision';

/** Resolves an identity provider's SCIM bearer token: organisation-wide, SCIM provisioning only. */
export class ScimTokenAuthenticator {
  private readonly cache: PrincipalCache;

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
    private readonly now: () => number,
  ) {
    this.cache = new PrincipalCache(bus, SCIM_TOKENS_TOPIC, 1000);
  }

  async authenticate(token: string): Promise<Principal> {
    const entry = await this.cache.resolve(hashOpaqueToken(token), this.now(), () => this.load(token));
    if (!entry) throw new UnauthorizedError('Invalid SCIM token', 'invalid_scim_token');
    return entry.principal;
  }

  private async load(token: string) {
    const record = await this.store.scimTokens.findByTokenHash(hashOpaqueToken(token));
    if (!record || record.status !== 'active') return undefined;
    const workspace = await this.store.workspaces.getDefault(record.organisation_id);
    if (!workspace) return undefined;
    const principal: Principal = {
      credential: 'scim',
      keyId: null,
      organisationId: record.organisation_id,
      workspaceId: null,
      gatewayWorkspaceId: workspace.id,
      userId: null,
      subject: `scim:${record.name}`,
      keyType: 'organisation',
      subType: 'service',
      scopes: new Set([SCIM_SCOPE]),
      validUntil: null,
      credentialId: record.id,
    };
    return { principal, extra: undefined };
  }
}
