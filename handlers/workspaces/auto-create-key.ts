import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../../core/auth/api-key-secret.js';
import { scopesWithinRole } from '../../core/auth/roles.js';
import { roleOf } from '../../store/role-of.js';
import type { ApiKeyRecord } from '../../store/repositories/api-keys.js';
import type { User } from '../../store/repositories/users.js';
import type { Workspace } from '../../store/repositories/workspaces.js';
import type { Store } from '../../store/store.js';
import { enforcedUserKeyRotation } from '../api-keys/rotation-policy.js';
import { nextRotationAt } from '../api-keys/rotation.js';
import type { WorkspaceSettings } from './present.js';
import { effectiveSecurity, type SecuritySections } from '../../core/security/settings.js';
import { latestExpiry } from '../api-keys/expiry-policy.js';

/** The workspace's own switch when it set one; else the organisation's (its default-workspace switch for the default workspace). */
function autoCreateOn(workspace: Workspace, organisationSettings: Record<string, unknown>): boolean {
  const own = (workspace.settings as WorkspaceSettings).user_api_key_auto_create;
  if (typeof own === 'boolean') return own;
  if (workspace.is_default && typeof organisationSettings.default_workspace_user_api_key_auto_create === 'boolean') {
    return organisationSettings.default_workspace_user_api_key_auto_create;
  }
  return organisationSettings.user_api_key_auto_create === true;
}

/**
 * Gives a user who just joined a workspace their auto-created workspace user key, when auto-create
 * is on there and they hold none yet. The secret is thrown away: nobody sees it until the user
 * rotates the key. Call inside the transaction that adds the membership.
 */
export async function autoCreateUserKey(store: Store, workspace: Workspace, user: User, at: number): Promise<ApiKeyRecord | undefined> {
  const organisation = await store.organisations.get(workspace.organisation_id);
  const organisationSettings = organisation?.settings ?? {};
  if (!autoCreateOn(workspace, organisationSettings)) return undefined;
  if (await store.apiKeys.activeAutoCreated(workspace.id, user.id)) return undefined;
  const role = await roleOf(store, workspace.organisation_id, user.id, workspace.id);
  if (!role) return undefined;
  const wanted = (organisationSettings.user_api_key_auto_create_scopes ?? []) as string[];
  const ttl = (workspace.settings as WorkspaceSettings).user_api_key_ttl;
  const security = effectiveSecurity((organisationSettings.security_settings ?? {}) as SecuritySections, (workspace.settings.security_settings ?? null) as SecuritySections | null);
  // The workspace's ttl, brought within security_settings.api_keys.max_ttl_days.
  const expiries = [typeof ttl === 'number' ? at + ttl * 1000 : null, latestExpiry(security, at)].filter((ms): ms is number => ms !== null);
  const rotationDays = await enforcedUserKeyRotation(store, workspace.organisation_id, null);
  const secret = generateApiKeySecret();
  return store.apiKeys.create(
    {
      organisation_id: workspace.organisation_id,
      workspace_id: workspace.id,
      user_id: user.id,
      type: 'workspace',
      sub_type: 'user',
      name: `auto: ${user.email}`,
      description: null,
      scopes: scopesWithinRole(role, wanted),
      key_hash: hashApiKeySecret(secret),
      masked_key: maskApiKeySecret(secret),
      expires_at: expiries.length ? new Date(Math.min(...expiries)).toISOString() : null,
      rotation_period: null,
      rotation_period_days: rotationDays,
      next_rotation_at: nextRotationAt(rotationDays, at),
      created_by: null,
      auto_created: true,
    },
    new Date(at).toISOString(),
  );
}
