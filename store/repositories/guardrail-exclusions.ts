import type { Knex } from 'knex';
import type { GuardrailPhase } from './guardrail-defaults.js';

/** Workspaces the organisation's default guardrails of a phase do not apply to. */
export class GuardrailExclusionsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async list(organisationId: string, phase: GuardrailPhase): Promise<Array<{ id: string; slug: string }>> {
    return this.db('guardrail_workspace_exclusions as e')
      .join('workspaces as w', 'w.id', 'e.workspace_id')
      .where({ 'e.organisation_id': organisationId, 'e.phase': phase })
      .orderBy('w.slug')
      .select('w.id', 'w.slug');
  }

  async excludes(organisationId: string, phase: GuardrailPhase, workspaceId: string): Promise<boolean> {
    const row = await this.db('guardrail_workspace_exclusions').where({ organisation_id: organisationId, phase, workspace_id: workspaceId }).first('workspace_id');
    return Boolean(row);
  }

  /** Adds the workspaces (already excluded ones are left as they are); `replace` first empties the list. Run inside a transaction. */
  async add(organisationId: string, phase: GuardrailPhase, workspaceIds: string[], replace: boolean): Promise<void> {
    const table = () => this.db('guardrail_workspace_exclusions');
    if (replace) await table().where({ organisation_id: organisationId, phase }).delete();
    if (!workspaceIds.length) return;
    await table()
      .insert([...new Set(workspaceIds)].map((workspace_id) => ({ organisation_id: organisationId, phase, workspace_id })))
      .onConflict(['organisation_id', 'phase', 'workspace_id'])
      .ignore();
  }
}
