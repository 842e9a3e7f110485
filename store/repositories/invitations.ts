import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';
import type { OrganisationRole, WorkspaceRole } from '../../core/auth/roles.js';

/** Stored states; `expired` is derived from expires_at when a pending invitation is read. */
export type InvitationStatus = 'pending' | 'accepted' | 'cancelled';

export interface InvitationWorkspace {
  workspace_id: string;
  role: WorkspaceRole;
}

export interface Invitation {
  id: string;
  organisation_id: string;
  email: string;
  role: OrganisationRole;
  workspaces: InvitationWorkspace[];
  token_hash: string;
  status: InvitationStatus;
  expires_at: string;
  accepted_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

type Row = Omit<Invitation, 'workspaces'> & { workspaces: unknown };

const toInvitation = (row: Row): Invitation => ({ ...row, workspaces: fromJson(row.workspaces, []) });

export class InvitationsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(
    input: Pick<Invitation, 'organisation_id' | 'email' | 'role' | 'workspaces' | 'token_hash' | 'expires_at' | 'created_by'>,
    now: string,
  ): Promise<Invitation> {
    const invitation: Invitation = {
      id: randomUUID(),
      ...input,
      email: input.email.toLowerCase(),
      status: 'pending',
      accepted_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db('invitations').insert({ ...invitation, workspaces: toJson(invitation.workspaces) });
    return invitation;
  }

  async get(organisationId: string, id: string): Promise<Invitation | undefined> {
    const row = await this.db('invitations').where({ organisation_id: organisationId, id }).first();
    return row ? toInvitation(row) : undefined;
  }

  async findByTokenHash(hash: string): Promise<Invitation | undefined> {
    const row = await this.db('invitations').where({ token_hash: hash }).first();
    return row ? toInvitation(row) : undefined;
  }

  /** The newest pending, unexpired invitation of an email (an invited user's first SSO sign-in accepts it). */
  async pendingFor(organisationId: string, email: string, now: string): Promise<Invitation | undefined> {
    const row = await this.db('invitations')
      .where({ organisation_id: organisationId, email: email.toLowerCase(), status: 'pending' })
      .andWhere('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .first();
    return row ? toInvitation(row) : undefined;
  }

  list(organisationId: string, page: PageRequest): Promise<Page<Invitation>> {
    return paginate(this.db('invitations').where({ organisation_id: organisationId }), page, toInvitation);
  }

  async update(
    id: string,
    changes: Partial<Pick<Invitation, 'status' | 'token_hash' | 'expires_at' | 'accepted_at'>>,
    now: string,
  ): Promise<void> {
    await this.db('invitations').where({ id }).update({ ...changes, updated_at: now });
  }
}
