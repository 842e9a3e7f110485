import type { ConfigNode } from '../../gateway/routing/config-node.js';
import type { Call } from '../../server/call.js';
import { ConflictError, ValidationError } from '../../server/errors.js';
import { workspacesDefaultingTo } from '../../store/config-references.js';
import { unknownGuardrailRefs } from '../../store/guardrail-refs.js';
import type { ConfigRecord } from '../../store/repositories/configs.js';

/** Every guardrail named by id or slug anywhere in the tree (inline guardrail objects are not references). */
export function guardrailRefs(node: ConfigNode): string[] {
  const own = [...(node.input_guardrails ?? []), ...(node.output_guardrails ?? [])].filter((ref): ref is string => typeof ref === 'string');
  return [...own, ...(node.targets ?? []).flatMap(guardrailRefs)];
}

/** A config may only name guardrails that exist (spec: rejected at save). */
export async function assertGuardrailsExist(call: Call, organisationId: string, config: ConfigNode): Promise<void> {
  const unknown = await unknownGuardrailRefs(call.services.db, organisationId, guardrailRefs(config));
  if (unknown.length) {
    throw new ValidationError(`Unknown guardrail${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, 'config', 'unknown_guardrail');
  }
}

/** Deleting the config a workspace hands to new user keys would break them: the default must be cleared first. */
export async function assertNotAWorkspaceDefault(call: Call, config: ConfigRecord): Promise<void> {
  const workspaces = await workspacesDefaultingTo(call.services.db, config.organisation_id, config);
  if (workspaces.length) {
    throw new ConflictError(
      `Config ${config.slug} is the user_api_key_config default of workspace ${workspaces.join(', ')}; clear that default first`,
      'config_in_use',
    );
  }
}
