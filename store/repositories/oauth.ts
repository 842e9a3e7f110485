import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';

export interface OAuthClient {
  id: string;
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  secret_hash: string | null;
  scope: string | null;
  /** The registration request's other metadata (client_uri, logo_uri, ...), answered back as registered. */
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface OAuthAuthorization {
  id: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string | null;
  code_challenge: string;
  resource: string | null;
  organisation_id: string | null;
  user_id: string | null;
  code_hash: string | null;
  status: 'pending' | 'approved' | 'denied' | 'used';
  expires_at: string;
  created_at: string;
}

export interface OAuthToken {
  id: string;
  token_hash: string;
  kind: 'access' | 'refresh';
  family_id: string;
  client_id: string;
  organisation_id: string;
  user_id: string;
  scope: string;
  resource: string | null;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

type ClientRow = Omit<OAuthClient, 'redirect_uris' | 'grant_types' | 'metadata'> & { redirect_uris: unknown; grant_types: unknown; metadata: unknown };

const toClient = (row: ClientRow): OAuthClient => ({
  ...row,
  redirect_uris: fromJson(row.redirect_uris, []),
  grant_types: fromJson(row.grant_types, []),
  metadata: fromJson(row.metadata, {}),
});

/** The OAuth authorization server's clients, pending authorizations and tokens. */
export class OAuthRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async createClient(input: Omit<OAuthClient, 'id' | 'created_at'>, now: string): Promise<OAuthClient> {
    const client: OAuthClient = { id: randomUUID(), ...input, created_at: now };
    await this.db('oauth_clients').insert({
      ...client,
      redirect_uris: toJson(client.redirect_uris),
      grant_types: toJson(client.grant_types),
      metadata: toJson(client.metadata),
    });
    return client;
  }

  async getClient(id: string): Promise<OAuthClient | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const row = await this.db('oauth_clients').where({ id }).first();
    return row ? toClient(row) : undefined;
  }

  async createAuthorization(input: Omit<OAuthAuthorization, 'id' | 'created_at' | 'organisation_id' | 'user_id' | 'code_hash' | 'status'>, now: string): Promise<OAuthAuthorization> {
    const row: OAuthAuthorization = { id: randomUUID(), ...input, organisation_id: null, user_id: null, code_hash: null, status: 'pending', created_at: now };
    await this.db('oauth_authorizations').insert(row);
    return row;
  }

  async getAuthorization(id: string): Promise<OAuthAuthorization | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return this.db('oauth_authorizations').where({ id }).first();
  }

  /** Moves a pending authorization to approved (with the user and code) or denied; false when it was no longer pending. */
  async decide(id: string, decision: Pick<OAuthAuthorization, 'status' | 'organisation_id' | 'user_id' | 'code_hash' | 'expires_at'>): Promise<boolean> {
    return (await this.db('oauth_authorizations').where({ id, status: 'pending' }).update(decision)) > 0;
  }

  async findByCodeHash(hash: string): Promise<OAuthAuthorization | undefined> {
    return this.db('oauth_authorizations').where({ code_hash: hash }).first();
  }

  /** Spends a code once: false when another exchange got it first. */
  async spendCode(id: string): Promise<boolean> {
    return (await this.db('oauth_authorizations').where({ id, status: 'approved' }).update({ status: 'used' })) > 0;
  }

  async createToken(input: Omit<OAuthToken, 'id' | 'used_at' | 'revoked_at' | 'created_at'>, now: string): Promise<OAuthToken> {
    const row: OAuthToken = { id: randomUUID(), ...input, used_at: null, revoked_at: null, created_at: now };
    await this.db('oauth_tokens').insert(row);
    return row;
  }

  async findToken(hash: string): Promise<OAuthToken | undefined> {
    return this.db('oauth_tokens').where({ token_hash: hash }).first();
  }

  /** Marks a refresh token spent; false when it already was (a replay). */
  async spendRefreshToken(id: string, now: string): Promise<boolean> {
    return (await this.db('oauth_tokens').where({ id, kind: 'refresh' }).whereNull('used_at').whereNull('revoked_at').update({ used_at: now })) > 0;
  }

  async revokeFamily(familyId: string, now: string): Promise<void> {
    await this.db('oauth_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** Revokes every token of a user; the families revoked. */
  async revokeUser(userId: string, now: string): Promise<string[]> {
    const families = (await this.db('oauth_tokens').where({ user_id: userId }).whereNull('revoked_at').distinct('family_id').pluck('family_id')) as string[];
    if (families.length) await this.db('oauth_tokens').whereIn('family_id', families).whereNull('revoked_at').update({ revoked_at: now });
    return families;
  }
}
