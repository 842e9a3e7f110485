import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import type { OrganisationRole } from '../../core/auth/roles.js';

export interface SsoSettings {
  organisation_id: string;
  issuer: string;
  client_id: string;
  /** Sealed (store/secret-box.ts); null for a public client. */
  client_secret: string | null;
  email_domains: string[];
  default_role: Exclude<OrganisationRole, 'owner'>;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** A sign-in sent to the identity provider and not yet back: what the callback must check. */
export interface SsoLogin {
  state_hash: string;
  organisation_id: string;
  code_verifier: string;
  nonce: string;
  return_to: string | null;
  expires_at: string;
}

type Row = Omit<SsoSettings, 'email_domains' | 'enabled'> & { email_domains: unknown; enabled: boolean | number };

const toSettings = (row: Row): SsoSettings => ({ ...row, email_domains: fromJson(row.email_domains, []), enabled: Boolean(row.enabled) });

export class SsoRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async get(organisationId: string): Promise<SsoSettings | undefined> {
    const row = await this.db('sso_settings').where({ organisation_id: organisationId }).first();
    return row ? toSettings(row) : undefined;
  }

  async put(settings: Omit<SsoSettings, 'created_at' | 'updated_at'>, now: string): Promise<void> {
    const row = { ...settings, email_domains: toJson(settings.email_domains), updated_at: now };
    await this.db('sso_settings')
      .insert({ ...row, created_at: now })
      .onConflict('organisation_id')
      .merge(row);
  }

  async delete(organisationId: string): Promise<boolean> {
    return (await this.db('sso_settings').where({ organisation_id: organisationId }).delete()) > 0;
  }

  async saveLogin(login: SsoLogin): Promise<void> {
    await this.db('sso_logins').insert(login);
  }

  /** The sign-in of this state, once: it is deleted as it is read. Expired ones are swept on the way. */
  async takeLogin(stateHash: string, now: string): Promise<SsoLogin | undefined> {
    await this.db('sso_logins').where('expires_at', '<', now).delete();
    const login = await this.db('sso_logins').where({ state_hash: stateHash }).first();
    if (!login) return undefined;
    const taken = await this.db('sso_logins').where({ state_hash: stateHash }).delete();
    return taken > 0 ? login : undefined;
  }
}
