import type { Knex } from 'knex';

/**
 * What the A2A door lets through to an agent: the workspaces whose callers may invoke it and the
 * skills it offers through gw (null: every workspace, every skill the card declares), and the saved
 * guardrails run on the messages in and out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.jsonb('workspace_ids');
    t.jsonb('allowed_skills');
    t.jsonb('input_guardrails');
    t.jsonb('output_guardrails');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.dropColumn('workspace_ids');
    t.dropColumn('allowed_skills');
    t.dropColumn('input_guardrails');
    t.dropColumn('output_guardrails');
  });
}
