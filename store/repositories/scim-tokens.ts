import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface ScimToken {
  id: string;
  organisation_id: string;
  name: string;
  token_hash: string;
  masked_token: string;
  status: 'active' | 'revoked';
  last_used_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Bearer tokens identity providers present on /v1/scim/v2; stored hashed, shown once. */
export class ScimTokensRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: Pick<ScimToken, 'organisation_id' | 'name' | 'token_hash' | 'masked_token' | 'created_by'>, now: string): Promise<ScimToken> {
    const row: ScimToken = { id: randomUUID(), ...input, status: 'active', last_used_at: null, created_at: now, updated_at: now };
    await this.db('scim_tokens').insert(row);
    return row;
  }

  async findByTokenHash(hash: string): Promise<ScimToken | undefined> {
    return this.db('scim_tokens').where({ token_hash: hash }).first();
  }

  async get(organisationId: string, id: string): Promise<ScimToken | undefined> {
    return this.db('scim_tokens').where({ organisation_id: organisationId, id }).first();
  }

  list(organisationId: string, page: PageRequest): Promise<Page<ScimToken>> {
    return paginate(this.db('scim_tokens').where({ organisation_id: organisationId, status: 'active' }), page, (row: ScimToken) => row);
  }

  async revoke(organisationId: string, id: string, now: string): Promise<boolean> {
    return (await this.db('scim_tokens').where({ organisation_id: organisationId, id, status: 'active' }).update({ status: 'revoked', updated_at: now })) > 0;
  }
}
