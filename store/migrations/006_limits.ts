import type { Knex } from 'knex';
import { idColumn, timestamps } from './columns.js';

/**
 * Usage-limit and rate-limit policies. Only the policies live here: the counters they drive are
 * in Redis (or in memory when gw runs alone), where every check is one atomic step. API keys,
 * workspaces and providers may carry their own limits (same shapes), enforced by the same engine.
 */
const LIMIT_OWNERS = ['api_keys', 'workspaces', 'providers'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_limits_policies', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).nullable();
    t.string('name', 255).notNullable();
    t.string('type', 16).notNullable();
    t.double('credit_limit').notNullable();
    t.double('alert_threshold').nullable();
    t.string('periodic_reset', 16).nullable();
    t.integer('periodic_reset_days').nullable();
    // The UTC midnight reset periods count from.
    t.string('reset_anchor', 32).notNullable();
    t.jsonb('conditions').notNullable();
    t.jsonb('group_by').notNullable();
    t.string('status', 16).notNullable();
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
  });
  await knex.schema.createTable('rate_limits_policies', (t) => {
    idColumn(t);
    t.string('organisation_id', 36).notNullable();
    t.string('workspace_id', 36).nullable();
    t.string('name', 255).notNullable();
    t.string('type', 16).notNullable();
    t.string('unit', 16).notNullable();
    t.bigInteger('value').notNullable();
    t.string('target', 16).notNullable();
    t.jsonb('conditions').notNullable();
    t.jsonb('group_by').notNullable();
    t.string('status', 16).notNullable();
    timestamps(t);
    t.index(['organisation_id', 'created_at', 'id']);
  });
  for (const table of LIMIT_OWNERS) {
    await knex.schema.alterTable(table, (t) => {
      t.jsonb('usage_limits').nullable();
      t.jsonb('rate_limits').nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of LIMIT_OWNERS) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('usage_limits');
      t.dropColumn('rate_limits');
    });
  }
  await knex.schema.dropTable('rate_limits_policies');
  await knex.schema.dropTable('usage_limits_policies');
}
