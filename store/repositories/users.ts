import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { OrganisationRole } from '../../core/auth/roles.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type UserStatus = 'active' | 'inactive' | 'removed';

export interface User {
  id: string;
  organisation_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: OrganisationRole;
  /** inactive: deactivated (SCIM `active: false`), may be reactivated; removed: deleted. */
  status: UserStatus;
  /** The SCIM client's id for the user. */
  external_id: string | null;
  /** The OIDC subject of the user's SSO sign-ins. */
  sso_subject: string | null;
  provisioned_by: 'invite' | 'sso' | 'scim' | null;
  created_at: string;
  updated_at: string;
}

export interface NewUser {
  organisation_id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  role: OrganisationRole;
  external_id?: string | null;
  sso_subject?: string | null;
  provisioned_by?: User['provisioned_by'];
}

export class UsersRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewUser, now: string): Promise<User> {
    const row: User = {
      id: randomUUID(),
      organisation_id: input.organisation_id,
      email: input.email.toLowerCase(),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      role: input.role,
      status: 'active',
      external_id: input.external_id ?? null,
      sso_subject: input.sso_subject ?? null,
      provisioned_by: input.provisioned_by ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.db('users').insert(row);
    return row;
  }

  async get(organisationId: string, id: string): Promise<User | undefined> {
    return this.db('users').where({ organisation_id: organisationId, id }).first();
  }

  async findByEmail(organisationId: string, email: string): Promise<User | undefined> {
    return this.db('users').where({ organisation_id: organisationId, email: email.toLowerCase() }).first();
  }

  /**
   * Active and deactivated users, or those of one status. Removed users are never listed; they stay
   * as rows so audit entries and keys keep their author.
   */
  list(organisationId: string, page: PageRequest & { status?: 'active' | 'inactive' }): Promise<Page<User>> {
    const query = this.db('users').where({ organisation_id: organisationId });
    if (page.status) query.where({ status: page.status });
    else query.whereIn('status', ['active', 'inactive']);
    return paginate(query, page, (row: User) => row);
  }

  async findBySsoSubject(organisationId: string, subject: string): Promise<User | undefined> {
    return this.db('users').where({ organisation_id: organisationId, sso_subject: subject }).first();
  }

  async update(
    organisationId: string,
    id: string,
    changes: Partial<Pick<User, 'first_name' | 'last_name' | 'role' | 'status' | 'email' | 'external_id' | 'sso_subject'>>,
    now: string,
  ): Promise<void> {
    await this.db('users').where({ organisation_id: organisationId, id }).update({ ...changes, updated_at: now });
  }

  async countOwners(organisationId: string): Promise<number> {
    const row = await this.db('users').where({ organisation_id: organisationId, role: 'owner', status: 'active' }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
