import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type OrganisationRole = 'owner' | 'admin' | 'member';

export interface User {
  id: string;
  organisation_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: OrganisationRole;
  status: 'active' | 'removed';
  created_at: string;
  updated_at: string;
}

export interface NewUser {
  organisation_id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  role: OrganisationRole;
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
      created_at: now,
      updated_at: now,
    };
    await this.db('users').insert(row);
    return row;
  }

  async get(organisationId: string, id: string): Promise<User | undefined> {
    return this.db('users').where({ organisation_id: organisationId, id }).first();
  }

  list(organisationId: string, page: PageRequest): Promise<Page<User>> {
    return paginate(this.db('users').where({ organisation_id: organisationId }), page, (row: User) => row);
  }
}
