import type { Context } from 'openapi-backend';
import { GUARDRAILS_TOPIC } from '../../gateway/guardrails/saved-guardrails.js';
import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import type { GuardrailPhase } from '../../store/repositories/guardrail-defaults.js';
import { body, type Handler } from '../types.js';

async function present(call: Call, organisationId: string, phase: GuardrailPhase) {
  return { object: 'guardrail_workspace_exclusions' as const, phase, workspaces: await call.services.store.guardrailExclusions.list(organisationId, phase) };
}

function getExclusions(phase: GuardrailPhase): Handler {
  return async (_c, call) => ({ body: await present(call, principalOf(call).organisationId, phase) });
}

/** Adds the workspaces to the phase's exclusions; `override_existing` replaces the list instead. */
function updateExclusions(phase: GuardrailPhase): Handler {
  return async (c: Context, call) => {
    const organisationId = principalOf(call).organisationId;
    const input = body<'updateInputGuardrailExclusions'>(c);
    const { store, bus } = call.services;
    const ids: string[] = [];
    for (const ref of input.workspaces) {
      const workspace = await store.workspaces.find(organisationId, ref);
      if (!workspace) throw new NotFoundError('Workspace', ref);
      ids.push(workspace.id);
    }
    await store.transaction((tx) => tx.guardrailExclusions.add(organisationId, phase, ids, input.override_existing === true));
    await bus.publish(GUARDRAILS_TOPIC, organisationId);
    return { body: await present(call, organisationId, phase) };
  };
}

export const getInputGuardrailExclusions = getExclusions('input');
export const updateInputGuardrailExclusions = updateExclusions('input');
export const getOutputGuardrailExclusions = getExclusions('output');
export const updateOutputGuardrailExclusions = updateExclusions('output');
