import type { Knex } from 'knex';
import { idColumn } from './columns.js';

/**
 * The OAuth 2.1 authorization server: dynamically registered clients, authorization requests
 * waiting for consent, codes, and access and refresh tokens (all stored hashed). Refresh tokens
 * rotate: each belongs to a family, and reusing a spent one revokes the family.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    idColumn(t);
    t.string('client_name', 255).nullable();
    t.jsonb('redirect_uris').notNullable();
    t.jsonb('grant_types').notNullable();
    t.string('token_endpoint_auth_method', 32).notNullable();
    // SHA-256 of the client secret for confidential clients.
    t.string('secret_hash', 64).nullable();
    t.string('scope', 2048).nullable();
    t.jsonb('metadata').notNullable();
    t.string('created_at', 32).notNullable();
  });

  await knex.schema.createTable('oauth_authorizations', (t) => {
    idColumn(t);
    t.string('client_id', 36).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('redirect_uri', 2048).notNullable();
    t.string('scope', 2048).notNullable();
    t.string('state', 1024).nullable();
    t.string('code_challenge', 128).notNullable();
    t.string('resource', 2048).nullable();
    // Set once consent is given: the user, and the hash of the code sent back.
    t.string('organisation_id', 36).nullable();
    t.string('user_id', 36).nullable();
    t.string('code_hash', 64).nullable().unique();
    // 'pending' | 'approved' | 'denied' | 'used'
    t.string('status', 16).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['expires_at']);
  });

  await knex.schema.createTable('oauth_tokens', (t) => {
    idColumn(t);
    t.string('token_hash', 64).notNullable().unique();
    // 'access' | 'refresh'
    t.string('kind', 8).notNullable();
    t.string('family_id', 36).notNullable();
    t.string('client_id', 36).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('organisation_id', 36).notNullable().references('organisations.id').onDelete('CASCADE');
    t.string('user_id', 36).notNullable().references('users.id').onDelete('CASCADE');
    t.string('scope', 2048).notNullable();
    t.string('resource', 2048).nullable();
    t.string('expires_at', 32).notNullable();
    t.string('used_at', 32).nullable();
    t.string('revoked_at', 32).nullable();
    t.string('created_at', 32).notNullable();
    t.index(['family_id']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('oauth_tokens');
  await knex.schema.dropTable('oauth_authorizations');
  await knex.schema.dropTable('oauth_clients');
}
