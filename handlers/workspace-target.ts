import type { Principal } from '../core/auth/principal.js';
import type { Call } from '../core/call.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';

/**
 * The workspace a workspace-scoped write or list acts on: a workspace key's own workspace
 * (naming another is refused), or for an admin key the one named, else the default workspace.
 */
export async function targetWorkspaceId(call: Call, principal: Principal, idOrSlug: string | undefined): Promise<string> {
  if (idOrSlug === undefined) return principal.workspaceId ?? principal.gatewayWorkspaceId;
  const workspace = await call.services.store.workspaces.find(principal.organisationId, idOrSlug);
  if (!workspace) throw new NotFoundError('Workspace', idOrSlug);
  if (principal.workspaceId !== null && principal.workspaceId !== workspace.id) {
    throw new ForbiddenError('A workspace key can act on its own workspace only');
  }
  return workspace.id;
}

/** For lists: a workspace key always sees its own workspace; an admin key all, or the one named. */
export async function listWorkspaceFilter(call: Call, principal: Principal, idOrSlug: string | undefined): Promise<string | undefined> {
  if (idOrSlug === undefined) return principal.workspaceId ?? undefined;
  return targetWorkspaceId(call, principal, idOrSlug);
}

/** Slug from a display name when none is given: lowercase words joined by dashes. */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 240);
  return slug || 'item';
}

/** Workspace ids or slugs of the organisation -> their ids (deduplicated); an unknown one is a 404. */
export async function resolveWorkspaceIds(call: Call, organisationId: string, idsOrSlugs: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const idOrSlug of idsOrSlugs) {
    const workspace = await call.services.store.workspaces.find(organisationId, idOrSlug);
    if (!workspace) throw new NotFoundError('Workspace', idOrSlug);
    ids.push(workspace.id);
  }
  return [...new Set(ids)];
}
