import type { components } from '../../generated/types.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { ScimMapping } from '../../store/repositories/scim.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { announceMembershipChanges, syncMappedWorkspaces } from './membership-sync.js';

type MappingBody = components['schemas']['ScimMapping'];

async function present(call: Call, mappings: ScimMapping[]): Promise<MappingBody[]> {
  const names = new Map<string, string>();
  for (const id of new Set(mappings.map((mapping) => mapping.scim_group_id))) {
    names.set(id, (await call.services.store.scim.getGroup(principalOf(call).organisationId, id))?.display_name ?? '');
  }
  return mappings.map((m) => ({ id: m.id, workspace_id: m.workspace_id, scim_group: names.get(m.scim_group_id)!, scim_group_id: m.scim_group_id, role: m.role, created_at: m.created_at }));
}

export const listScimWorkspaceMappings: Handler = async (c, call) => {
  const input = query<'listScimWorkspaceMappings'>(c);
  const organisationId = principalOf(call).organisationId;
  let workspaceId: string | undefined;
  if (input.workspace_id) {
    const workspace = await call.services.store.workspaces.find(organisationId, input.workspace_id);
    if (!workspace) throw new NotFoundError('Workspace', input.workspace_id);
    workspaceId = workspace.id;
  }
  const result = await call.services.store.scim.listMappings(
    organisationId,
    { workspace_id: workspaceId, scim_group_id: input.scim_group_id, role: input.role },
    { page: input.page ?? 0, pageSize: input.page_size ?? 50 },
  );
  return { body: { mappings: await present(call, result.rows), total_count: result.total } };
};

/**
 * Maps a group (by id, or by name: a name not pushed by SCIM yet creates the group) to a
 * workspace. Every mapping of one group carries one role: a different role is refused.
 */
export const createScimWorkspaceMapping: Handler = async (c, call) => {
  const input = body<'createScimWorkspaceMapping'>(c);
  const organisationId = principalOf(call).organisationId;
  const { store } = call.services;
  const at = isoNow(call);
  const workspace = await store.workspaces.find(organisationId, input.workspace_id);
  if (!workspace) throw new ValidationError(`Workspace ${input.workspace_id} not found`, 'workspace_id', 'workspace_not_found');
  let group = input.scim_group_id ? await store.scim.getGroup(organisationId, input.scim_group_id) : await store.scim.findGroupByName(organisationId, input.scim_group_name!);
  if (!group && input.scim_group_id) throw new ValidationError(`SCIM group ${input.scim_group_id} not found`, 'scim_group_id', 'scim_group_not_found');
  group ??= await store.scim.createGroup({ organisation_id: organisationId, display_name: input.scim_group_name!, external_id: null }, at);

  const existing = await store.scim.activeMappingsOfGroups([group.id]);
  const other = existing.find((mapping) => mapping.role !== input.role);
  if (other) {
    throw new ConflictError(`The group's other mappings give the role ${other.role}; every mapping of a group gives one role`, 'scim_mapping_role_conflict', 'role');
  }
  if (existing.some((mapping) => mapping.workspace_id === workspace.id)) throw new ConflictError('The group is already mapped to this workspace', 'scim_mapping_exists');

  const members = await store.scim.memberIds(group.id);
  const mapping = await store.transaction(async (tx) => {
    const created = await tx.scim.createMapping({ organisation_id: organisationId, workspace_id: workspace.id, scim_group_id: group.id, role: input.role }, at);
    for (const userId of members) await syncMappedWorkspaces(tx, organisationId, userId, at);
    return created;
  });
  await announceMembershipChanges(call, organisationId, members);
  return { status: 201, body: (await present(call, [mapping]))[0] };
};

/** Archives the mapping; the memberships only it gave end. */
export const deleteScimWorkspaceMapping: Handler = async (c, call) => {
  const organisationId = principalOf(call).organisationId;
  const { store } = call.services;
  const mapping = await store.scim.getMapping(organisationId, pathId(c));
  if (!mapping) throw new NotFoundError('SCIM workspace mapping', pathId(c));
  const at = isoNow(call);
  const members = await store.scim.memberIds(mapping.scim_group_id);
  await store.transaction(async (tx) => {
    await tx.scim.archiveMapping(mapping.id, at);
    for (const userId of members) await syncMappedWorkspaces(tx, organisationId, userId, at);
  });
  await announceMembershipChanges(call, organisationId, members);
  return { body: { success: true } };
};

export const listScimGroupsAdmin: Handler = async (c, call) => {
  const input = query<'listScimGroupsAdmin'>(c);
  const { store } = call.services;
  const result = await store.scim.searchGroups(principalOf(call).organisationId, input.search, { page: input.page ?? 0, pageSize: input.page_size ?? 50 });
  const members = await store.scim.membersOf(result.rows.map((group) => group.id));
  return {
    body: {
      groups: result.rows.map((group) => ({ id: group.id, display_name: group.display_name, external_id: group.external_id, members_count: members.get(group.id)?.length ?? 0, created_at: group.created_at })),
      total_count: result.total,
    },
  };
};
