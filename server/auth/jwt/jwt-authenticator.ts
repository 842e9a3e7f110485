import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { Store } from '../../../store/store.js';
import type { User } from '../../../store/repositories/users.js';
import type { OrganisationRole, WorkspaceRole } from '../../../core/auth/roles.js';
import type { JwtConfig } from '../../../core/config.js';
import { UnauthorizedError } from '../../../core/errors.js';
import type { InvalidationBus } from '../../../core/invalidation.js';
import { allScopes } from '../../../core/scopes.js';
import { hashOpaqueToken } from '../../../core/auth/opaque-token.js';
import type { Principal } from '../../../core/auth/principal.js';
import { PrincipalCache } from '../principal-cache.js';
import { scopesWithinRole, type Role } from '../../../core/auth/roles.js';
import { roleOf } from '../../../store/role-of.js';
import type { MergedKeySets } from './key-sets.js';

/** Three base64url segments whose first two are JSON objects: a JWT, told apart before any verification. */
const JWT_SHAPE = /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

const ORGANISATION_ROLES: readonly OrganisationRole[] = ['owner', 'admin', 'member'];
const WORKSPACE_ROLES: readonly WorkspaceRole[] = ['admin', 'manager', 'member'];

function invalid(message: string, code = 'invalid_jwt'): UnauthorizedError {
  return new UnauthorizedError(message, code);
}

/**
 * Verifies JWTs against the configured key sets (issuer, audience, expiry, not-before, algorithm
 * allow-list) and turns their claims, named by JWT_CLAIM_* settings, into a principal. A token
 * for a known gw user carries that user's current role; any other token the role its claims
 * name. Either way its scopes are cut to what the role allows.
 */
export class JwtAuthenticator {
  private readonly cache: PrincipalCache;

  constructor(
    private readonly config: JwtConfig,
    private readonly keySets: MergedKeySets,
    private readonly store: Store,
    bus: InvalidationBus,
    private readonly now: () => number,
  ) {
    this.cache = new PrincipalCache(bus, undefined);
  }

  async authenticate(token: string): Promise<Principal> {
    const hash = hashOpaqueToken(token);
    const entry = await this.cache.resolve(hash, this.now(), async () => ({ principal: await this.verify(token), extra: undefined }));
    return entry!.principal;
  }

  private async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySets.getKey, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: [...this.config.algorithms],
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ['exp'],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw invalid('This JWT has expired', 'expired_jwt');
      if (error instanceof errors.JOSEError) throw invalid(`Invalid JWT: ${error.message}`);
      throw error;
    }
    return this.toPrincipal(payload);
  }

  private claim(payload: JWTPayload, name: string): unknown {
    return payload[name];
  }

  private stringClaim(payload: JWTPayload, name: string): string | undefined {
    const value = this.claim(payload, name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  private async toPrincipal(payload: JWTPayload): Promise<Principal> {
    const { claims } = this.config;
    const subject = this.stringClaim(payload, claims.user);
    if (!subject) throw invalid(`The JWT has no ${claims.user} claim naming its user`);
    const email = this.stringClaim(payload, claims.email);

    const organisationRef = this.stringClaim(payload, claims.organisation);
    const organisation = organisationRef ? await this.store.organisations.find(organisationRef) : await this.store.organisations.sole();
    if (!organisation) throw invalid(organisationRef ? `The JWT names an unknown organisation` : `The JWT has no ${claims.organisation} claim`);

    const workspaceRef = this.stringClaim(payload, claims.workspace);
    const workspace = workspaceRef ? await this.store.workspaces.find(organisation.id, workspaceRef) : undefined;
    if (workspaceRef && !workspace) throw invalid('The JWT names an unknown workspace');
    const defaultWorkspace = workspace ?? (await this.store.workspaces.getDefault(organisation.id));
    if (!defaultWorkspace) throw invalid('The organisation has no default workspace');

    const user = await this.knownUser(organisation.id, subject, email);
    if (user && user.status !== 'active') throw invalid('The JWT names a user who is not active', 'user_inactive');
    const role = user ? await roleOf(this.store, organisation.id, user.id, workspace?.id ?? null) : this.claimedRole(payload, workspace !== undefined);
    if (!role) throw invalid('The JWT names a user who is not active', 'user_inactive');

    const known = new Set(allScopes());
    const scopes = this.claimedScopes(payload).filter((scope) => known.has(scope));
    return {
      credential: 'jwt',
      keyId: null,
      organisationId: organisation.id,
      workspaceId: workspace?.id ?? null,
      gatewayWorkspaceId: defaultWorkspace.id,
      userId: user?.id ?? null,
      subject,
      keyType: workspace ? 'workspace' : 'organisation',
      subType: 'user',
      role,
      scopes: new Set(scopesWithinRole(role, scopes)),
      validUntil: (payload.exp as number) * 1000,
    };
  }

  /** A gw user the token names: by id, by SSO subject, or by email. */
  private async knownUser(organisationId: string, subject: string, email: string | undefined): Promise<User | undefined> {
    const users = this.store.users;
    const byId = /^[0-9a-f-]{36}$/i.test(subject) ? await users.get(organisationId, subject) : undefined;
    return byId ?? (await users.findBySsoSubject(organisationId, subject)) ?? (email ? await users.findByEmail(organisationId, email) : undefined);
  }

  /** The workspace role counts only for a token that names a workspace: without one, a member holds nothing organisation-wide. */
  private claimedRole(payload: JWTPayload, namesWorkspace: boolean): Role {
    const { claims } = this.config;
    const organisation = this.stringClaim(payload, claims.role) ?? 'member';
    const workspace = this.stringClaim(payload, claims.workspaceRole) ?? 'member';
    if (!ORGANISATION_ROLES.includes(organisation as OrganisationRole)) throw invalid(`The JWT's ${claims.role} claim is not one of ${ORGANISATION_ROLES.join(', ')}`);
    if (!WORKSPACE_ROLES.includes(workspace as WorkspaceRole)) throw invalid(`The JWT's ${claims.workspaceRole} claim is not one of ${WORKSPACE_ROLES.join(', ')}`);
    return { organisation: organisation as OrganisationRole, workspace: namesWorkspace ? (workspace as WorkspaceRole) : null };
  }

  /** A space-separated string (RFC 8693 `scope`) or an array of strings (`scp`, `scopes`). */
  private claimedScopes(payload: JWTPayload): string[] {
    const value = this.claim(payload, this.config.claims.scopes);
    if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
    if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
    return [];
  }
}
