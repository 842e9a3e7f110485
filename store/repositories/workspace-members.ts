import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { WorkspaceRole } from '../../core/auth/roles.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface WorkspaceMember {
  id: string;
  organisation_id: string;
  workspace_id: string;
  user_id: string;
  role: WorkspaceRole;
  created_at: string;
  updated_at: string;
}

export class WorkspaceMembersRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async add(input: Pick<WorkspaceMember, 'organisation_id' | 'workspace_id' | 'user_id' | 'role'>, now: string): Promise<WorkspaceMember> {
    const row: WorkspaceMember = { id: randomUUID(), ...input, created_at: now, updated_at: now };
    await this.db('workspace_members').insert(row);
    return row;
  }

  async get(workspaceId: string, userId: string): Promise<WorkspaceMember | undefined> {
    return this.db('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).first();
  }

  list(workspaceId: string, page: PageRequest): Promise<Page<WorkspaceMember>> {
    return paginate(this.db('workspace_members').where({ workspace_id: workspaceId }), page, (row: WorkspaceMember) => row);
  }

  async forUser(userId: string): Promise<WorkspaceMember[]> {
    return this.db('workspace_members').where({ user_id: userId }).orderBy('created_at');
  }

  async updateRole(workspaceId: string, userId: string, role: WorkspaceRole, now: string): Promise<void> {
    await this.db('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).update({ role, updated_at: now });
  }

  async remove(workspaceId: string, userId: string): Promise<boolean> {
    return (await this.db('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).delete()) > 0;
  }

  async removeUser(userId: string): Promise<void> {
    await this.db('workspace_members').where({ user_id: userId }).delete();
  }
}
