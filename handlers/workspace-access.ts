import { principalOf, type Call } from '../core/call.js';
import { NotFoundError } from '../core/errors.js';
import type { Workspace } from '../store/repositories/workspaces.js';

/**
 * A workspace (by id or slug) the caller may see: any of its organisation's for an admin key,
 * only its own for a workspace key (others answer 404, as if they did not exist).
 */
export async function visibleWorkspace(call: Call, idOrSlug: string): Promise<Workspace> {
  const principal = principalOf(call);
  const workspace = await call.services.store.workspaces.find(principal.organisationId, idOrSlug);
  if (!workspace || (principal.workspaceId !== null && principal.workspaceId !== workspace.id)) {
    throw new NotFoundError('Workspace', idOrSlug);
  }
  return workspace;
}

export function isoNow(call: Call): string {
  return new Date(call.services.now()).toISOString();
}
