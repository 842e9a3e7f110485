import type { Call } from '../../core/call.js';
import { scimError } from '../../core/protocol-errors.js';
import type { ScimGroup } from '../../store/repositories/scim.js';
import type { User } from '../../store/repositories/users.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_CONTENT = { 'content-type': 'application/scim+json' };
export const SCIM_BASE_PATH = '/v1/scim/v2';
const MAX_COUNT = 1000;

export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { givenName?: string; familyName?: string; formatted?: string };
  displayName?: string;
  emails: Array<{ value: string; type: string; primary: boolean }>;
  active: boolean;
  groups: Array<{ value: string; display: string; $ref: string }>;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string };
}

export interface ScimGroupResource {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  members: Array<{ value: string; display: string; $ref: string }>;
  meta: { resourceType: 'Group'; created: string; lastModified: string; location: string };
}

export function scimUser(call: Call, user: User, groups: ScimGroup[]): ScimUser {
  const base = `${call.services.config.publicUrl}${SCIM_BASE_PATH}`;
  const formatted = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(user.external_id ? { externalId: user.external_id } : {}),
    userName: user.email,
    name: {
      ...(user.first_name ? { givenName: user.first_name } : {}),
      ...(user.last_name ? { familyName: user.last_name } : {}),
      ...(formatted ? { formatted } : {}),
    },
    ...(formatted ? { displayName: formatted } : {}),
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.status === 'active',
    groups: groups.map((group) => ({ value: group.id, display: group.display_name, $ref: `${base}/Groups/${group.id}` })),
    meta: { resourceType: 'User', created: user.created_at, lastModified: user.updated_at, location: `${base}/Users/${user.id}` },
  };
}

export function scimGroup(call: Call, group: ScimGroup, members: Array<{ id: string; email: string }>): ScimGroupResource {
  const base = `${call.services.config.publicUrl}${SCIM_BASE_PATH}`;
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.external_id ? { externalId: group.external_id } : {}),
    displayName: group.display_name,
    members: members.map((member) => ({ value: member.id, display: member.email, $ref: `${base}/Users/${member.id}` })),
    meta: { resourceType: 'Group', created: group.created_at, lastModified: group.updated_at, location: `${base}/Groups/${group.id}` },
  };
}

export function listResponse(resources: unknown[], total: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

export function listPage(query: { filter?: string; startIndex?: number; count?: number }) {
  return { filter: query.filter, startIndex: query.startIndex ?? 1, count: Math.min(query.count ?? 100, MAX_COUNT) };
}

/** excludedAttributes=members (Azure, Okta on large groups) leaves the members out of the answer. */
export function excludes(query: { excludedAttributes?: string }, attribute: string): boolean {
  return (query.excludedAttributes ?? '').split(',').some((name) => name.trim().toLowerCase() === attribute);
}

export function scimNotFound(what: string, id: string) {
  return scimError(404, `${what} ${id} not found`);
}

/** SCIM booleans arrive as true/false, and from some providers as "True"/"False". */
export function scimBoolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw scimError(400, `${field} must be true or false`, 'invalidValue');
}
