import type { Store } from '../../store/store.js';
import type { User } from '../../store/repositories/users.js';
import { allScopes } from '../../core/scopes.js';
import type { CredentialKind, Principal } from '../../core/auth/principal.js';
import { isOrganisationManager, scopesWithinRole } from '../../core/auth/roles.js';

export interface UserPrincipalOptions {
  credential: CredentialKind;
  /** What the credential was granted (an OAuth token's scopes); every scope when absent. Cut to the user's role. */
  scopes?: readonly string[];
  validUntil: number | null;
  credentialId?: string;
  oauthClientId?: string;
  oauthResource?: string;
}

/**
 * A signed-in person (session, OAuth access token) as a principal: organisation owners and admins
 * act organisation-wide; everyone else acts in their first workspace with that workspace's role.
 * Undefined when the user is not active.
 */
export async function userPrincipal(store: Store, user: User, options: UserPrincipalOptions): Promise<Principal | undefined> {
  if (user.status !== 'active') return undefined;
  const wanted = options.scopes ?? allScopes();
  const defaultWorkspace = await store.workspaces.getDefault(user.organisation_id);
  if (!defaultWorkspace) return undefined;
  const base = {
    credential: options.credential,
    keyId: null,
    organisationId: user.organisation_id,
    userId: user.id,
    subject: user.email,
    subType: 'user' as const,
    validUntil: options.validUntil,
    credentialId: options.credentialId,
    oauthClientId: options.oauthClientId,
    oauthResource: options.oauthResource,
  };
  if (isOrganisationManager(user.role)) {
    const role = { organisation: user.role, workspace: null };
    return { ...base, role, workspaceId: null, gatewayWorkspaceId: defaultWorkspace.id, keyType: 'organisation', scopes: new Set(wanted) };
  }
  const [membership] = await store.workspaceMembers.forUser(user.id);
  const role = { organisation: user.role, workspace: membership?.role ?? null };
  const workspaceId = membership?.workspace_id ?? defaultWorkspace.id;
  return { ...base, role, workspaceId, gatewayWorkspaceId: workspaceId, keyType: 'workspace', scopes: new Set(scopesWithinRole(role, wanted)) };
}
