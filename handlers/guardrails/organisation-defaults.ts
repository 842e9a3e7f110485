import { GUARDRAILS_TOPIC } from '../../gateway/guardrails/saved-guardrails.js';
import { principalOf, type Call } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';
import type { GuardrailPhase } from '../../store/repositories/guardrail-defaults.js';
import { body, type Handler } from '../types.js';

async function present(call: Call, organisationId: string) {
  const { store } = call.services;
  const phase = async (name: GuardrailPhase) => {
    const ids = await store.guardrailDefaults.list(organisationId, name);
    const slugs = new Map((await store.guardrails.byIds(ids)).map((record) => [record.id, record.slug]));
    return ids.map((id) => ({ id, slug: slugs.get(id)! }));
  };
  return { object: 'organisation_guardrail_defaults' as const, input_guardrails: await phase('input'), output_guardrails: await phase('output') };
}

/** Ids of the named guardrails; each must exist and belong to the whole organisation (a default runs in every workspace). */
async function resolveRefs(call: Call, organisationId: string, refs: string[], param: string): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, ref] of refs.entries()) {
    const record = await call.services.store.guardrails.find(organisationId, ref);
    if (!record) throw new ValidationError(`${param}[${index}] names no guardrail: ${ref}`, `${param}[${index}]`, 'unknown_guardrail');
    if (record.workspace_id !== null) {
      throw new ValidationError(`${param}[${index}]: guardrail ${record.slug} belongs to one workspace; defaults must be organisation-wide`, `${param}[${index}]`, 'workspace_guardrail');
    }
    if (!ids.includes(record.id)) ids.push(record.id);
  }
  return ids;
}

export const getOrganisationGuardrailDefaults: Handler = async (_c, call) => ({ body: await present(call, principalOf(call).organisationId) });

/** Each list sent replaces that phase's defaults; a phase left out keeps its list. */
export const updateOrganisationGuardrailDefaults: Handler = async (c, call) => {
  const organisationId = principalOf(call).organisationId;
  const input = body<'updateOrganisationGuardrailDefaults'>(c);
  const { store, bus } = call.services;
  const input_ids = input.input_guardrails && (await resolveRefs(call, organisationId, input.input_guardrails, 'input_guardrails'));
  const output_ids = input.output_guardrails && (await resolveRefs(call, organisationId, input.output_guardrails, 'output_guardrails'));
  await store.transaction(async (tx) => {
    if (input_ids) await tx.guardrailDefaults.replace(organisationId, 'input', input_ids);
    if (output_ids) await tx.guardrailDefaults.replace(organisationId, 'output', output_ids);
  });
  await bus.publish(GUARDRAILS_TOPIC, organisationId);
  return { body: await present(call, organisationId) };
};
