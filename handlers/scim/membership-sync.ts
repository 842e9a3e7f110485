import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { USERS_TOPIC } from '../../core/auth/topics.js';
import type { Call } from '../../core/call.js';
import type { WorkspaceRole } from '../../core/auth/roles.js';
import type { Store } from '../../store/store.js';

const RANK: Record<WorkspaceRole, number> = { member: 0, manager: 1, admin: 2 };

/**
 * Makes a user's mapping-made workspace memberships what their groups' mappings say: joins the
 * mapped workspaces with the mapped role (the highest when two groups map one workspace), and
 * leaves those no group maps any more. Memberships made by hand are never touched.
 */
export async function syncMappedWorkspaces(tx: Store, organisationId: string, userId: string, at: string): Promise<void> {
  const groups = await tx.scim.groupsOfUser(userId);
  const wanted = new Map<string, WorkspaceRole>();
  for (const mapping of await tx.scim.activeMappingsOfGroups(groups.map((group) => group.id))) {
    const held = wanted.get(mapping.workspace_id);
    if (!held || RANK[mapping.role] > RANK[held]) wanted.set(mapping.workspace_id, mapping.role);
  }
  const current = new Map((await tx.scim.managedMemberships(userId)).map((membership) => [membership.workspace_id, membership]));
  for (const [workspaceId, role] of wanted) {
    const membership = current.get(workspaceId);
    if (!membership) await tx.scim.addManagedMembership({ organisation_id: organisationId, workspace_id: workspaceId, user_id: userId, role }, at);
    else if (membership.scim_managed && membership.role !== role) await tx.scim.setManagedRole(workspaceId, userId, role, at);
  }
  for (const membership of current.values()) {
    if (membership.scim_managed && !wanted.has(membership.workspace_id)) await tx.scim.removeManagedMembership(membership.workspace_id, userId);
  }
}

/** After a commit that changed users' memberships: their sessions, tokens and keys are re-read everywhere. */
export async function announceMembershipChanges(call: Call, organisationId: string, userIds: Iterable<string>): Promise<void> {
  const { store, bus } = call.services;
  for (const userId of new Set(userIds)) {
    await bus.publish(USERS_TOPIC, userId);
    for (const keyId of await store.apiKeys.activeIdsOfUser(organisationId, userId)) await bus.publish(API_KEYS_TOPIC, keyId);
  }
}
