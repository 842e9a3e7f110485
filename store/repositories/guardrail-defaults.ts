import type { Knex } from 'knex';

export type GuardrailPhase = 'input' | 'output';

/** An organisation's default guardrails per phase, in the order they run. */
export class GuardrailDefaultsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async list(organisationId: string, phase: GuardrailPhase): Promise<string[]> {
    const rows: Array<{ guardrail_id: string }> = await this.db('organisation_guardrail_defaults')
      .where({ organisation_id: organisationId, phase })
      .orderBy('position')
      .select('guardrail_id');
    return rows.map((row) => row.guardrail_id);
  }

  /** Replaces the phase's list. Run inside a transaction. */
  async replace(organisationId: string, phase: GuardrailPhase, guardrailIds: string[]): Promise<void> {
    await this.db('organisation_guardrail_defaults').where({ organisation_id: organisationId, phase }).delete();
    if (!guardrailIds.length) return;
    await this.db('organisation_guardrail_defaults').insert(
      guardrailIds.map((guardrail_id, position) => ({ organisation_id: organisationId, phase, guardrail_id, position })),
    );
  }

  async uses(guardrailId: string): Promise<boolean> {
    return Boolean(await this.db('organisation_guardrail_defaults').where({ guardrail_id: guardrailId }).first('guardrail_id'));
  }
}
