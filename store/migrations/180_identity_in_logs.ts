import type { Knex } from 'knex';

/**
 * Callers other than API keys (JWT, console sessions, SCIM and OAuth tokens): the audit log
 * records which credential acted and the user it named; request logs record that user too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_logs', (t) => {
    t.string('actor_credential', 16).nullable();
    t.string('actor_subject', 320).nullable();
    t.index(['organisation_id', 'actor_subject', 'created_at']);
  });
  await knex.schema.alterTable('request_logs', (t) => {
    t.string('auth_subject', 320).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('auth_subject');
  });
  await knex.schema.alterTable('audit_logs', (t) => {
    t.dropIndex(['organisation_id', 'actor_subject', 'created_at']);
    t.dropColumn('actor_subject');
    t.dropColumn('actor_credential');
  });
}
