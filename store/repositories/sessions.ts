import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface Session {
  id: string;
  token_hash: string;
  organisation_id: string;
  user_id: string;
  csrf_token: string;
  ip_address: string | null;
  user_agent: string | null;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}

export type NewSession = Pick<Session, 'token_hash' | 'organisation_id' | 'user_id' | 'csrf_token' | 'ip_address' | 'user_agent' | 'expires_at'>;

/** Console sessions, stored by the hash of their cookie value; revoking one ends it on every instance. */
export class SessionsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewSession, now: string): Promise<Session> {
    const row: Session = { id: randomUUID(), ...input, revoked_at: null, created_at: now, updated_at: now };
    await this.db('sessions').insert(row);
    return row;
  }

  async findByTokenHash(hash: string): Promise<Session | undefined> {
    return this.db('sessions').where({ token_hash: hash }).first();
  }

  /** Revokes one live session; true when it was live. */
  async revoke(id: string, now: string): Promise<boolean> {
    return (await this.db('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: now, updated_at: now })) > 0;
  }

  /** Revokes every live session of a user; the ids revoked. */
  async revokeUser(userId: string, now: string): Promise<string[]> {
    const ids = (await this.db('sessions').where({ user_id: userId }).whereNull('revoked_at').pluck('id')) as string[];
    if (ids.length) await this.db('sessions').whereIn('id', ids).update({ revoked_at: now, updated_at: now });
    return ids;
  }
}
