import type { Knex } from 'knex';

/**
 * Log export leases: the instance running an export holds it until `lease_expires_at` (ISO text,
 * like every timestamp) and keeps renewing it; another instance takes over only once it lapses.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('log_exports', (t) => {
    t.string('lease_owner', 64);
    t.string('lease_expires_at', 32);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('log_exports', (t) => {
    t.dropColumn('lease_owner');
    t.dropColumn('lease_expires_at');
  });
}
