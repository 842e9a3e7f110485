import type { Role } from '../core/auth/roles.js';
import type { Store } from './store.js';

/** A user's organisation role and their role in one workspace (none for organisation keys); undefined when not an active user. */
export async function roleOf(store: Store, organisationId: string, userId: string, workspaceId: string | null): Promise<Role | undefined> {
  const user = await store.users.get(organisationId, userId);
  if (!user || user.status !== 'active') return undefined;
  const member = workspaceId ? await store.workspaceMembers.get(workspaceId, userId) : undefined;
  return { organisation: user.role, workspace: member?.role ?? null };
}
