export type OrganisationRole = 'owner' | 'admin' | 'member';
export type WorkspaceRole = 'admin' | 'manager' | 'member';

/**
 * The spec's role tables as scope ceilings. Organisation owners and admins hold every scope.
 * Workspace admins and managers hold everything but the organisation-wide scopes (settings,
 * workspaces, users and permissions, audit logs, organisation guardrails); members hold the
 * calls and reads a workspace user needs, and cannot create keys.
 */
const ORGANISATION_ONLY_PREFIXES = [
  'organisation_settings.',
  'organisation_guardrails.',
  'organisation_exclusions.',
  'users.',
  'workspace_users.',
  'audit_logs.',
  'scim.',
] as const;
const ORGANISATION_ONLY_SCOPES = new Set(['workspaces.create', 'workspaces.update', 'workspaces.delete']);

const MEMBER_SCOPES = new Set([
  'completions.write',
  'assistants.read',
  'assistants.write',
  'threads.read',
  'threads.write',
  'agents.invoke',
  'mcp.invoke',
  'guardrails.invoke',
  'feedback.create',
  'feedback.update',
  'workspaces.read',
  'workspaces.list',
  'configs.read',
  'configs.list',
  'virtual_keys.read',
  'virtual_keys.list',
  'guardrails.read',
  'guardrails.list',
  'logs.view',
  'logs.list',
  'analytics.view',
]);

export interface Role {
  organisation: OrganisationRole;
  workspace: WorkspaceRole | null;
}

export function isOrganisationOnlyScope(scope: string): boolean {
  return ORGANISATION_ONLY_SCOPES.has(scope) || ORGANISATION_ONLY_PREFIXES.some((prefix) => scope.startsWith(prefix));
}

export function isOrganisationManager(role: OrganisationRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** May a user with this workspace role hold this scope (in that workspace)? */
export function workspaceRoleAllows(role: WorkspaceRole, scope: string): boolean {
  if (role === 'member') return MEMBER_SCOPES.has(scope);
  return !isOrganisationOnlyScope(scope);
}

/** Scopes of `wanted` above what the role allows. */
export function scopesAboveRole(role: Role, wanted: readonly string[]): string[] {
  if (isOrganisationManager(role.organisation)) return [];
  return wanted.filter((scope) => !role.workspace || !workspaceRoleAllows(role.workspace, scope));
}

/** Only organisation owners/admins create admin keys; workspace admins and managers create keys of their own workspace; members none. */
export function canCreateKeys(role: Role, kind: 'organisation' | 'workspace'): boolean {
  if (isOrganisationManager(role.organisation)) return true;
  return kind === 'workspace' && (role.workspace === 'admin' || role.workspace === 'manager');
}

/** The scopes of `held` the role still allows: a key acting for a person never outgrows that person's current role. */
export function scopesWithinRole(role: Role, held: readonly string[]): string[] {
  const above = new Set(scopesAboveRole(role, held));
  return held.filter((scope) => !above.has(scope));
}
