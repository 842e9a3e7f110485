import type { ConfigNode } from '../../gateway/routing/config-node.js';
import type { Call } from '../../core/call.js';
import { ConflictError } from '../../core/errors.js';
import { latestConfigDocuments } from '../../store/guardrail-refs.js';
import type { GuardrailRecord } from '../../store/repositories/guardrails.js';
import { guardrailRefs } from '../configs/config-rules.js';

/** A guardrail that saved configs or the organisation defaults name cannot go: they would break. */
export async function assertNotInUse(call: Call, guardrail: GuardrailRecord): Promise<void> {
  const { store, db } = call.services;
  if (await store.guardrailDefaults.uses(guardrail.id)) {
    throw new ConflictError(`Guardrail ${guardrail.slug} is an organisation default; remove it from the defaults first`, 'guardrail_in_use');
  }
  const configs = (await latestConfigDocuments(db, guardrail.organisation_id))
    .filter(({ config }) => guardrailRefs(config as ConfigNode).some((ref) => ref === guardrail.id || ref === guardrail.slug))
    .map(({ slug }) => slug);
  if (configs.length) {
    throw new ConflictError(`Guardrail ${guardrail.slug} is used by config ${configs.join(', ')}; remove it there first`, 'guardrail_in_use');
  }
}
