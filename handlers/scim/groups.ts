import type { ScimPatchOperation } from 'scim-patch';
import { principalOf, type Call } from '../../core/call.js';
import { scimError } from '../../core/protocol-errors.js';
import { ScimFilterError } from '../../store/scim-filter.js';
import type { ScimGroup } from '../../store/repositories/scim.js';
import { pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { announceMembershipChanges, syncMappedWorkspaces } from './membership-sync.js';
import { excludes, listPage, listResponse, scimGroup, scimNotFound, SCIM_CONTENT } from './scim-resources.js';
import { applyPatch } from './users.js';

interface GroupFields {
  display_name: string;
  external_id: string | null;
  memberIds: string[];
}

function fieldsOf(resource: Record<string, unknown>): GroupFields {
  const displayName = typeof resource.displayName === 'string' ? resource.displayName.trim() : '';
  if (!displayName) throw scimError(400, 'displayName is required', 'invalidValue');
  const members = Array.isArray(resource.members) ? (resource.members as Array<{ value?: unknown }>) : [];
  return {
    display_name: displayName,
    external_id: typeof resource.externalId === 'string' ? resource.externalId : null,
    memberIds: [...new Set(members.map((member) => member.value).filter((value): value is string => typeof value === 'string'))],
  };
}

async function visibleGroup(call: Call, id: string): Promise<ScimGroup> {
  const group = await call.services.store.scim.getGroup(principalOf(call).organisationId, id);
  if (!group) throw scimNotFound('Group', id);
  return group;
}

async function present(call: Call, group: ScimGroup, withMembers = true) {
  const members = withMembers ? ((await call.services.store.scim.membersOf([group.id])).get(group.id) ?? []) : [];
  return scimGroup(call, group, members);
}

/**
 * Writes a group's name and members, then brings every user who joined or left to the workspace
 * memberships the group's mappings give. Members must be users of the organisation.
 */
async function save(call: Call, group: ScimGroup | undefined, fields: GroupFields): Promise<ScimGroup> {
  const organisationId = principalOf(call).organisationId;
  const { store } = call.services;
  const at = isoNow(call);
  const clash = await store.scim.findGroupByName(organisationId, fields.display_name);
  if (clash && clash.id !== group?.id) throw scimError(409, `A group named ${fields.display_name} exists`, 'uniqueness');
  for (const id of fields.memberIds) {
    const user = /^[0-9a-f-]{36}$/i.test(id) ? await store.users.get(organisationId, id) : undefined;
    if (!user || user.status === 'removed') throw scimError(400, `members: ${id} is not a user`, 'invalidValue');
  }
  const changed: string[] = [];
  const saved = await store.transaction(async (tx) => {
    let target = group;
    if (target) await tx.scim.updateGroup(target.id, { display_name: fields.display_name, external_id: fields.external_id }, at);
    else target = await tx.scim.createGroup({ organisation_id: organisationId, display_name: fields.display_name, external_id: fields.external_id }, at);
    const before = new Set(await tx.scim.memberIds(target.id));
    const after = new Set(fields.memberIds);
    const joined = [...after].filter((id) => !before.has(id));
    const left = [...before].filter((id) => !after.has(id));
    await tx.scim.addMembers(target.id, joined);
    await tx.scim.removeMembers(target.id, left);
    for (const userId of [...joined, ...left]) await syncMappedWorkspaces(tx, organisationId, userId, at);
    changed.push(...joined, ...left);
    return (await tx.scim.getGroup(organisationId, target.id))!;
  });
  await announceMembershipChanges(call, organisationId, changed);
  return saved;
}

export const listScimGroups: Handler = async (c, call) => {
  const input = query<'listScimGroups'>(c);
  const page = listPage(input);
  const { store } = call.services;
  let result;
  try {
    result = await store.scim.listGroups(principalOf(call).organisationId, page);
  } catch (error) {
    if (error instanceof ScimFilterError) throw scimError(400, error.message, 'invalidFilter');
    throw error;
  }
  const members = excludes(input, 'members') ? new Map() : await store.scim.membersOf(result.rows.map((group) => group.id));
  const resources = result.rows.map((group) => scimGroup(call, group, members.get(group.id) ?? []));
  return { body: listResponse(resources, result.total, page.startIndex), headers: SCIM_CONTENT };
};

export const getScimGroup: Handler = async (c, call) => {
  const group = await visibleGroup(call, pathId(c));
  return { body: await present(call, group, !excludes(query<'getScimGroup'>(c), 'members')), headers: SCIM_CONTENT };
};

export const createScimGroup: Handler = async (c, call) => {
  const body = await present(call, await save(call, undefined, fieldsOf(c.request.requestBody as Record<string, unknown>)));
  return { status: 201, body, headers: { ...SCIM_CONTENT, location: body.meta.location } };
};

export const replaceScimGroup: Handler = async (c, call) => {
  const group = await visibleGroup(call, pathId(c));
  return { body: await present(call, await save(call, group, fieldsOf(c.request.requestBody as Record<string, unknown>))), headers: SCIM_CONTENT };
};

/**
 * Member adds and removes as Okta and Azure send them: `add` with a `members` value list,
 * `remove` with `members[value eq "id"]` or with a value list, and `replace` of displayName
 * (with or without a path).
 */
export const patchScimGroup: Handler = async (c, call) => {
  const group = await visibleGroup(call, pathId(c));
  const resource = await present(call, group);
  const operations = (c.request.requestBody as { Operations: ScimPatchOperation[] }).Operations;
  const patched = applyPatch(resource, operations);
  return { body: await present(call, await save(call, group, fieldsOf(patched))), headers: SCIM_CONTENT };
};

export const deleteScimGroup: Handler = async (c, call) => {
  const group = await visibleGroup(call, pathId(c));
  const { store } = call.services;
  const at = isoNow(call);
  const members = await store.scim.memberIds(group.id);
  await store.transaction(async (tx) => {
    await tx.scim.deleteGroup(group.id);
    for (const userId of members) await syncMappedWorkspaces(tx, group.organisation_id, userId, at);
  });
  await announceMembershipChanges(call, group.organisation_id, members);
  return { status: 204 };
};
