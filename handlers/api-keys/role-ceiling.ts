import { canCreateKeys, scopesAboveRole, type Role } from '../../core/auth/roles.js';
import { roleOf } from '../../store/role-of.js';
import type { Principal } from '../../core/auth/principal.js';
import { ForbiddenError, ValidationError } from '../../core/errors.js';
import type { ApiKeyType } from '../../core/auth/principal.js';
import type { Store } from '../../store/store.js';

function assertWithinRole(role: Role, scopes: readonly string[], whose: string): void {
  const above = scopesAboveRole(role, scopes);
  if (above.length) {
    throw new ForbiddenError(`Scopes above ${whose} role: ${above.join(', ')}`, 'scope_above_role');
  }
}

/**
 * The spec's role table, for the person behind the calling key: owners and admins create any
 * key; workspace admins and managers create keys of their own workspace; members none. Scopes
 * beyond the creator's role are refused. Service keys act for no person: they are bounded by
 * their own scopes (checked separately).
 */
export async function assertCreatorMayGrant(
  store: Store,
  principal: Principal,
  kind: ApiKeyType,
  workspaceId: string | null,
  scopes: readonly string[],
): Promise<void> {
  if (!principal.userId) return;
  const role = await roleOf(store, principal.organisationId, principal.userId, workspaceId);
  if (!role) throw new ForbiddenError('The user behind this key is no longer active', 'inactive_user');
  if (!canCreateKeys(role, kind)) {
    throw new ForbiddenError(
      kind === 'organisation' ? 'Only organisation owners and admins create admin keys' : 'Your role cannot create keys for this workspace',
      'role_cannot_create_keys',
    );
  }
  assertWithinRole(role, scopes, 'your');
}

/** A workspace user key carries at most what its user may do in that workspace. */
export async function assertUserKeyWithinRole(store: Store, organisationId: string, userId: string, workspaceId: string, scopes: readonly string[]): Promise<void> {
  const role = await roleOf(store, organisationId, userId, workspaceId);
  if (!role) throw new ValidationError(`No active user ${userId}`, 'user_id', 'unknown_user');
  if (role.workspace === null && role.organisation === 'member') {
    throw new ValidationError('The user is not a member of this workspace', 'user_id', 'user_not_in_workspace');
  }
  assertWithinRole(role, scopes, "the key user's");
}
