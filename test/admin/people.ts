import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../../core/auth/api-key-secret.js';
import type { ApiKeyType } from '../../core/auth/principal.js';
import type { OrganisationRole, WorkspaceRole } from '../../core/auth/roles.js';
import type { TestApp } from '../helpers/test-app.js';

let counter = 0;

/** A user of the bootstrap organisation, made directly in the store (invitations are tested on their own). */
export async function makeUser(app: TestApp, role: OrganisationRole, workspace?: { id: string; role: WorkspaceRole }) {
  const now = new Date(app.services.now()).toISOString();
  const user = await app.services.store.users.create(
    { organisation_id: app.boot.organisationId, email: `user${++counter}-${role}@example.test`, role },
    now,
  );
  if (workspace) {
    await app.services.store.workspaceMembers.add(
      { organisation_id: app.boot.organisationId, workspace_id: workspace.id, user_id: user.id, role: workspace.role },
      now,
    );
  }
  return user;
}

/**
 * A key acting for a user, written straight to the store: how a console session or JWT would
 * present that person (the Admin API itself only mints service keys and workspace user keys).
 */
export async function keyFor(app: TestApp, options: { userId: string | null; type: ApiKeyType; workspaceId: string | null; scopes: string[] }): Promise<string> {
  const secret = generateApiKeySecret();
  await app.services.store.apiKeys.create(
    {
      organisation_id: app.boot.organisationId,
      workspace_id: options.workspaceId,
      user_id: options.userId,
      type: options.type,
      sub_type: options.userId ? 'user' : 'service',
      name: `test key ${++counter}`,
      description: null,
      scopes: options.scopes,
      key_hash: hashApiKeySecret(secret),
      masked_key: maskApiKeySecret(secret),
      expires_at: null,
      rotation_period: null,
      rotation_period_days: null,
      next_rotation_at: null,
      created_by: null,
    },
    new Date(app.services.now()).toISOString(),
  );
  return secret;
}
