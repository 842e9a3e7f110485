import type { Context } from 'openapi-backend';
import type { components } from '../../generated/types.js';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { User } from '../../store/repositories/users.js';
import type { WorkspaceMember } from '../../store/repositories/workspace-members.js';
import { recheckKeysOf } from '../users/key-recheck.js';
import { autoCreateUserKey } from './auto-create-key.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow, visibleWorkspace } from '../workspace-access.js';

type MemberBody = components['schemas']['WorkspaceMember'];

function presentMember(member: WorkspaceMember, user: User): MemberBody {
  return {
    object: 'workspace_member',
    workspace_id: member.workspace_id,
    user_id: member.user_id,
    role: member.role,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    created_at: member.created_at,
    updated_at: member.updated_at,
  };
}

function userIdOf(c: Context): string {
  return String(c.request.params.userId);
}

async function activeUser(call: Call, userId: string): Promise<User> {
  const user = await call.services.store.users.get(principalOf(call).organisationId, userId);
  if (!user || user.status !== 'active') throw new NotFoundError('User', userId);
  return user;
}

async function existingMember(call: Call, workspaceId: string, userId: string): Promise<WorkspaceMember> {
  const member = await call.services.store.workspaceMembers.get(workspaceId, userId);
  if (!member) throw new NotFoundError('Workspace member', userId);
  return member;
}

export const addWorkspaceMember: Handler = async (c, call) => {
  const workspace = await visibleWorkspace(call, pathId(c));
  const input = body<'addWorkspaceMember'>(c);
  const user = await activeUser(call, input.user_id);
  const { store } = call.services;
  if (await store.workspaceMembers.get(workspace.id, user.id)) {
    throw new ConflictError('The user is already a member of this workspace', 'already_member', 'user_id');
  }
  const member = await store.transaction(async (tx) => {
    const added = await tx.workspaceMembers.add(
      { organisation_id: workspace.organisation_id, workspace_id: workspace.id, user_id: user.id, role: input.role },
      isoNow(call),
    );
    // Its secret is not in this answer: the admin adding the member never sees it.
    await autoCreateUserKey(tx, workspace, user, call.services.now());
    return added;
  });
  return { status: 201, body: presentMember(member, user) };
};

export const listWorkspaceMembers: Handler = async (c, call) => {
  const workspace = await visibleWorkspace(call, pathId(c));
  const { store } = call.services;
  const page = await store.workspaceMembers.list(workspace.id, query<'listWorkspaceMembers'>(c));
  const data = await Promise.all(
    page.data.map(async (member) => presentMember(member, (await store.users.get(workspace.organisation_id, member.user_id))!)),
  );
  return { body: { ...page, data } };
};

export const updateWorkspaceMember: Handler = async (c, call) => {
  const workspace = await visibleWorkspace(call, pathId(c));
  const user = await activeUser(call, userIdOf(c));
  await existingMember(call, workspace.id, user.id);
  const { store } = call.services;
  await store.workspaceMembers.updateRole(workspace.id, user.id, body<'updateWorkspaceMember'>(c).role, isoNow(call));
  await recheckKeysOf(call, user);
  return { body: presentMember((await store.workspaceMembers.get(workspace.id, user.id))!, user) };
};

/** Leaving a workspace revokes the user's keys of it: they would otherwise outlive the membership. */
export const removeWorkspaceMember: Handler = async (c, call) => {
  const workspace = await visibleWorkspace(call, pathId(c));
  const userId = userIdOf(c);
  await existingMember(call, workspace.id, userId);
  const { store, bus } = call.services;
  const revoked = await store.transaction(async (tx) => {
    await tx.workspaceMembers.remove(workspace.id, userId);
    return tx.apiKeys.revokeWhere(workspace.organisation_id, { user_id: userId, workspace_id: workspace.id }, isoNow(call));
  });
  for (const keyId of revoked) await bus.publish(API_KEYS_TOPIC, keyId);
  return { body: { id: userId, object: 'workspace_member', deleted: true } };
};
