/**
 * What the key form starts from: the scope set of each role gw documents (docs/admin-api.md,
 * "Roles"), cut to what the signed-in caller holds, and the period a key's budget counts in.
 */
import type { ApiKey } from './types';

/** Scopes only organisation owners and admins hold (settings, people, audit, organisation guardrails). */
const ORGANISATION_ONLY_PREFIXES = ['organisation_settings.', 'organisation_guardrails.', 'organisation_exclusions.', 'users.', 'workspace_users.', 'audit_logs.', 'scim.'];
const ORGANISATION_ONLY = new Set(['workspaces.create', 'workspaces.update', 'workspaces.delete']);

/** A workspace member's calls and reads. */
const MEMBER = new Set([
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

function organisationOnly(scope: string): boolean {
  return ORGANISATION_ONLY.has(scope) || ORGANISATION_ONLY_PREFIXES.some((prefix) => scope.startsWith(prefix));
}

export interface RolePreset {
  id: string;
  label: string;
  /** Which of the caller's scopes the role holds. */
  holds: (scope: string) => boolean;
}

export const ROLE_PRESETS: RolePreset[] = [
  { id: 'gateway', label: 'Gateway calls only', holds: (scope) => scope === 'completions.write' },
  { id: 'member', label: 'Workspace member', holds: (scope) => MEMBER.has(scope) },
  { id: 'manager', label: 'Workspace admin or manager', holds: (scope) => !organisationOnly(scope) },
  { id: 'admin', label: 'Organisation admin (every scope)', holds: () => true },
];

/** The preset's scopes among those the caller may give. */
export function presetScopes(preset: RolePreset, own: readonly string[]): string[] {
  return own.filter(preset.holds);
}

/** The preset whose scope set is exactly `chosen`, if any (the form shows "Custom" otherwise). */
export function matchingPreset(chosen: ReadonlySet<string>, own: readonly string[]): string {
  const found = ROLE_PRESETS.find((preset) => {
    const scopes = presetScopes(preset, own);
    return scopes.length === chosen.size && scopes.every((s) => chosen.has(s));
  });
  return found?.id ?? 'custom';
}

/** Scopes grouped by resource (`logs.list` under `logs`), groups and scopes sorted. */
export function groupScopes(scopes: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const scope of [...scopes].sort()) {
    const group = scope.slice(0, scope.indexOf('.')) || scope;
    groups.set(group, [...(groups.get(group) ?? []), scope]);
  }
  return [...groups.entries()];
}

const DAY = 86_400_000;

/**
 * Where the key's current budget period began: an attached usage limit resets monthly on the 1st
 * (UTC), every 7 days or every N days counted from the key's creation day, or never; a key without
 * one is shown for the calendar month.
 */
export function periodStart(key: Pick<ApiKey, 'created_at' | 'usage_limits'>, now: Date): Date {
  const limit = key.usage_limits;
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  if (!limit || limit.periodic_reset === 'monthly') return monthStart;
  const created = new Date(key.created_at);
  const createdDay = Date.UTC(created.getUTCFullYear(), created.getUTCMonth(), created.getUTCDate());
  const every = limit.periodic_reset === 'weekly' ? 7 : limit.periodic_reset_days;
  if (!every) return new Date(createdDay);
  const periods = Math.floor((now.getTime() - createdDay) / (every * DAY));
  return new Date(createdDay + Math.max(0, periods) * every * DAY);
}
