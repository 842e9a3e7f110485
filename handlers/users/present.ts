import type { components } from '../../generated/types.js';
import type { Store } from '../../store/store.js';
import type { User } from '../../store/repositories/users.js';

type UserBody = components['schemas']['User'];

export async function presentUser(store: Store, user: User): Promise<UserBody> {
  const memberships = await store.workspaceMembers.forUser(user.id);
  return {
    id: user.id,
    object: 'user',
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    role: user.role,
    status: user.status,
    workspaces: memberships.map((m) => ({ workspace_id: m.workspace_id, role: m.role })),
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
