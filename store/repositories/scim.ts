import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { applyScimFilter, ScimFilterError, type ScimAttribute } from '../scim-filter.js';
import type { User } from './users.js';
import type { WorkspaceRole } from '../../core/auth/roles.js';

export interface ScimGroup {
  id: string;
  organisation_id: string;
  display_name: string;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScimMapping {
  id: string;
  organisation_id: string;
  workspace_id: string;
  scim_group_id: string;
  role: WorkspaceRole;
  status: 'active' | 'archived';
  created_at: string;
  updated_at: string;
}

/** One SCIM list page: 1-based startIndex, as RFC 7644 pages. */
export interface ScimPage {
  filter?: string;
  startIndex: number;
  count: number;
}

export interface ScimList<T> {
  total: number;
  rows: T[];
}

const USER_ATTRIBUTES: Record<string, ScimAttribute> = {
  id: { column: 'id', type: 'string' },
  username: { column: 'email', type: 'string' },
  'emails.value': { column: 'email', type: 'string' },
  emails: { column: 'email', type: 'string' },
  externalid: { column: 'external_id', type: 'string' },
  'name.givenname': { column: 'first_name', type: 'string' },
  'name.familyname': { column: 'last_name', type: 'string' },
  'meta.created': { column: 'created_at', type: 'datetime' },
  'meta.lastmodified': { column: 'updated_at', type: 'datetime' },
  active: {
    type: 'boolean',
    apply: (q, value, negate) => (value !== negate ? q.where({ status: 'active' }) : q.whereNot({ status: 'active' })),
  },
};

function groupAttributes(db: Knex | Knex.Transaction): Record<string, ScimAttribute> {
  const members: ScimAttribute = {
    type: 'subquery',
    apply: (q, op, value) => {
      if (op !== 'eq') throw new ScimFilterError('members filters compare with eq');
      q.whereIn('id', db('scim_group_members').select('group_id').where({ user_id: value }));
    },
  };
  return {
    id: { column: 'id', type: 'string' },
    displayname: { column: 'display_name', type: 'string' },
    externalid: { column: 'external_id', type: 'string' },
    'meta.created': { column: 'created_at', type: 'datetime' },
    'meta.lastmodified': { column: 'updated_at', type: 'datetime' },
    members,
    'members.value': members,
  };
}

/** SCIM users (over the users table), groups, their members, and group-to-workspace mappings. */
export class ScimRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  private async page<T>(query: Knex.QueryBuilder, page: ScimPage, order: string): Promise<ScimList<T>> {
    const total = Number((await query.clone().clearSelect().clearOrder().count({ n: '*' }).first())?.n ?? 0);
    const rows = (await query.orderBy(order).orderBy('id').offset(Math.max(page.startIndex, 1) - 1).limit(page.count)) as T[];
    return { total, rows };
  }

  /** Users SCIM sees: every one not removed (deactivated users included). */
  listUsers(organisationId: string, page: ScimPage): Promise<ScimList<User>> {
    const query = this.db('users').where({ organisation_id: organisationId }).whereNot({ status: 'removed' });
    if (page.filter) applyScimFilter(query, page.filter, USER_ATTRIBUTES);
    return this.page(query, page, 'created_at');
  }

  async createGroup(input: Pick<ScimGroup, 'organisation_id' | 'display_name' | 'external_id'>, now: string): Promise<ScimGroup> {
    const row: ScimGroup = { id: randomUUID(), ...input, created_at: now, updated_at: now };
    await this.db('scim_groups').insert(row);
    return row;
  }

  async getGroup(organisationId: string, id: string): Promise<ScimGroup | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return this.db('scim_groups').where({ organisation_id: organisationId, id }).first();
  }

  async findGroupByName(organisationId: string, name: string): Promise<ScimGroup | undefined> {
    return this.db('scim_groups').where({ organisation_id: organisationId }).whereRaw('lower(display_name) = ?', [name.toLowerCase()]).first();
  }

  listGroups(organisationId: string, page: ScimPage): Promise<ScimList<ScimGroup>> {
    const query = this.db('scim_groups').where({ organisation_id: organisationId });
    if (page.filter) applyScimFilter(query, page.filter, groupAttributes(this.db));
    return this.page(query, page, 'created_at');
  }

  /** The Admin API's group list: a name search, newest first. */
  searchGroups(organisationId: string, search: string | undefined, page: { page: number; pageSize: number }): Promise<ScimList<ScimGroup>> {
    const query = this.db('scim_groups').where({ organisation_id: organisationId });
    if (search) query.whereRaw(`lower(display_name) like ? escape '\\'`, [`%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    return this.page(query, { startIndex: page.page * page.pageSize + 1, count: page.pageSize }, 'display_name');
  }

  async updateGroup(id: string, changes: Partial<Pick<ScimGroup, 'display_name' | 'external_id'>>, now: string): Promise<void> {
    await this.db('scim_groups').where({ id }).update({ ...changes, updated_at: now });
  }

  async deleteGroup(id: string): Promise<void> {
    await this.db('scim_groups').where({ id }).delete();
  }

  async memberIds(groupId: string): Promise<string[]> {
    return (await this.db('scim_group_members').where({ group_id: groupId }).orderBy('user_id').pluck('user_id')) as string[];
  }

  /** Members of several groups at once, for list pages: group id -> [{id, email}]. */
  async membersOf(groupIds: string[]): Promise<Map<string, Array<{ id: string; email: string }>>> {
    const result = new Map<string, Array<{ id: string; email: string }>>(groupIds.map((id) => [id, []]));
    if (groupIds.length === 0) return result;
    const rows = (await this.db('scim_group_members')
      .join('users', 'users.id', 'scim_group_members.user_id')
      .whereIn('scim_group_members.group_id', groupIds)
      .orderBy('users.email')
      .select('scim_group_members.group_id as group_id', 'users.id as id', 'users.email as email')) as Array<{ group_id: string; id: string; email: string }>;
    for (const row of rows) result.get(row.group_id)!.push({ id: row.id, email: row.email });
    return result;
  }

  async addMembers(groupId: string, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.db('scim_group_members')
      .insert(userIds.map((user_id) => ({ group_id: groupId, user_id })))
      .onConflict(['group_id', 'user_id'])
      .ignore();
  }

  async removeMembers(groupId: string, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.db('scim_group_members').where({ group_id: groupId }).whereIn('user_id', userIds).delete();
  }

  async groupsOfUser(userId: string): Promise<ScimGroup[]> {
    return this.db('scim_groups')
      .join('scim_group_members', 'scim_group_members.group_id', 'scim_groups.id')
      .where('scim_group_members.user_id', userId)
      .orderBy('scim_groups.display_name')
      .select('scim_groups.*');
  }

  async createMapping(input: Pick<ScimMapping, 'organisation_id' | 'workspace_id' | 'scim_group_id' | 'role'>, now: string): Promise<ScimMapping> {
    const row: ScimMapping = { id: randomUUID(), ...input, status: 'active', created_at: now, updated_at: now };
    await this.db('scim_workspace_mappings').insert(row);
    return row;
  }

  async getMapping(organisationId: string, id: string): Promise<ScimMapping | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return this.db('scim_workspace_mappings').where({ organisation_id: organisationId, id, status: 'active' }).first();
  }

  listMappings(
    organisationId: string,
    filter: { workspace_id?: string; scim_group_id?: string; role?: string },
    page: { page: number; pageSize: number },
  ): Promise<ScimList<ScimMapping>> {
    const query = this.db('scim_workspace_mappings').where({ organisation_id: organisationId, status: 'active' });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    if (filter.scim_group_id) query.andWhere({ scim_group_id: filter.scim_group_id });
    if (filter.role) query.andWhere({ role: filter.role });
    return this.page(query, { startIndex: page.page * page.pageSize + 1, count: page.pageSize }, 'created_at');
  }

  async activeMappingsOfGroups(groupIds: string[]): Promise<ScimMapping[]> {
    if (groupIds.length === 0) return [];
    return this.db('scim_workspace_mappings').whereIn('scim_group_id', groupIds).andWhere({ status: 'active' });
  }

  async archiveMapping(id: string, now: string): Promise<void> {
    await this.db('scim_workspace_mappings').where({ id }).update({ status: 'archived', updated_at: now });
  }

  /** Workspace memberships of a user that mappings made: workspace id -> role. */
  async managedMemberships(userId: string): Promise<Array<{ workspace_id: string; role: WorkspaceRole; scim_managed: boolean }>> {
    const rows = (await this.db('workspace_members').where({ user_id: userId }).select('workspace_id', 'role', 'scim_managed')) as Array<{
      workspace_id: string;
      role: WorkspaceRole;
      scim_managed: boolean | number;
    }>;
    return rows.map((row) => ({ ...row, scim_managed: Boolean(row.scim_managed) }));
  }

  async addManagedMembership(input: { organisation_id: string; workspace_id: string; user_id: string; role: WorkspaceRole }, now: string): Promise<void> {
    await this.db('workspace_members').insert({ id: randomUUID(), ...input, scim_managed: true, created_at: now, updated_at: now });
  }

  async setManagedRole(workspaceId: string, userId: string, role: WorkspaceRole, now: string): Promise<void> {
    await this.db('workspace_members').where({ workspace_id: workspaceId, user_id: userId, scim_managed: true }).update({ role, updated_at: now });
  }

  async removeManagedMembership(workspaceId: string, userId: string): Promise<void> {
    await this.db('workspace_members').where({ workspace_id: workspaceId, user_id: userId, scim_managed: true }).delete();
  }
}
