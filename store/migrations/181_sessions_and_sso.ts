import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * SSO: an organisation's OIDC settings, sign-ins in progress (state, PKCE verifier, nonce) and
 * the server-side sessions they end in. Users gain the identity provider's subject and the
 * SCIM externalId, and an `inactive` status (deactivated, not removed).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('external_id', 255).nullable();
    t.string('sso_subject', 255).nullable();
    // 'invite' | 'sso' | 'scim' | null (bootstrap, Admin API).
    t.string('provisioned_by', 16).nullable();
    t.index(['organisation_id', 'sso_subject']);
    t.index(['organisation_id', 'external_id']);
  });

  await knex.schema.createTable('sso_settings', (t) => {
    t.string('organisation_id', 36).primary().references('organisations.id').onDelete('CASCADE');
    t.string('issuer', 2048).notNullable();
    t.string('client_id', 512).notNullable();
    // Sealed with the secret box; shown masked.
    t.text('client_secret').nullable();
    t.jsonb('email_domains').notNullable();
    t.string('default_role', 16).notNullable();
    t.boolean('enabled').notNullable();
    timestamps(t);
  });

  await knex.schema.createTable('sso_logins', (t) => {
    // SHA-256 of the OAuth state sent to the identity provider.
    t.string('state_hash', 64).primary();
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('code_verifier', 128).notNullable();
    t.string('nonce', 128).notNullable();
    t.string('return_to', 2048).nullable();
    t.string('expires_at', 32).notNullable();
    t.index(['expires_at']);
  });

  await knex.schema.createTable('sessions', (t) => {
    idColumn(t);
    // SHA-256 of the cookie value; the value itself is only in the browser.
    t.string('token_hash', 64).notNullable().unique();
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('user_id', 36).notNullable().references('users.id').onDelete('CASCADE');
    t.string('csrf_token', 64).notNullable();
    t.string('ip_address', 64).nullable();
    t.string('user_agent', 512).nullable();
    t.string('expires_at', 32).notNullable();
    t.string('revoked_at', 32).nullable();
    timestamps(t);
    t.index(['user_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('sso_logins');
  await knex.schema.dropTable('sso_settings');
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['organisation_id', 'external_id']);
    t.dropIndex(['organisation_id', 'sso_subject']);
    t.dropColumn('provisioned_by');
    t.dropColumn('sso_subject');
    t.dropColumn('external_id');
  });
}
