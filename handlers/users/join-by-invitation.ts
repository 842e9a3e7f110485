import { ConflictError } from '../../core/errors.js';
import type { Invitation } from '../../store/repositories/invitations.js';
import type { User } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';
import { autoCreateUserKey } from '../workspaces/auto-create-key.js';

/**
 * The invitee joins: the user is created (or a removed one comes back) with the invitation's role
 * and workspaces, and the invitation is accepted. Accepting by token and a first SSO sign-in share it.
 */
export async function joinByInvitation(
  tx: Store,
  invitation: Invitation,
  fields: Pick<User, 'first_name' | 'last_name'> & Partial<Pick<User, 'sso_subject' | 'provisioned_by'>>,
  nowMs: number,
  at: string,
): Promise<User> {
  const existing = await tx.users.findByEmail(invitation.organisation_id, invitation.email);
  if (existing?.status === 'active') throw new ConflictError(`${invitation.email} is already a user`, 'user_exists');
  let created: User;
  if (existing) {
    await tx.users.update(invitation.organisation_id, existing.id, { ...fields, role: invitation.role, status: 'active' }, at);
    created = (await tx.users.get(invitation.organisation_id, existing.id))!;
  } else {
    created = await tx.users.create({ organisation_id: invitation.organisation_id, email: invitation.email, role: invitation.role, provisioned_by: 'invite', ...fields }, at);
  }
  for (const { workspace_id, role } of invitation.workspaces) {
    const workspace = await tx.workspaces.get(invitation.organisation_id, workspace_id);
    if (workspace) {
      await tx.workspaceMembers.add({ organisation_id: invitation.organisation_id, workspace_id, user_id: created.id, role }, at);
      await autoCreateUserKey(tx, workspace, created, nowMs);
    }
  }
  await tx.invitations.update(invitation.id, { status: 'accepted', accepted_at: at }, at);
  return created;
}
