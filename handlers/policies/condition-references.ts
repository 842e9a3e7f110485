/**
 * The references in a limit policy's conditions, resolved when the policy is saved. The gateway
 * compares a condition with the request's ids (workspace id, API key id), so a workspace named by
 * its slug is stored as its id, and a reference to nothing, or one the policy can never see, is
 * refused with 400 naming the field: a condition that cannot match would let every call through.
 */
import type { LimitCondition } from '../../core/limit-policy-types.js';
import type { Call } from '../../core/call.js';
import { principalOf } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';

type Resolve = (call: Call, reference: string, policyWorkspaceId: string | null, param: string) => Promise<string>;

const ANY = '*';

const resolvers: Record<string, Resolve> = {
  workspace_id: async (call, reference, policyWorkspaceId, param) => {
    const workspace = await call.services.store.workspaces.find(principalOf(call).organisationId, reference);
    if (!workspace) throw new ValidationError(`${param} names no workspace of this organisation: ${reference}`, param, 'condition_reference_not_found');
    if (policyWorkspaceId !== null && workspace.id !== policyWorkspaceId) {
      throw new ValidationError(`${param} names workspace ${reference}, but this policy applies only to workspace ${policyWorkspaceId}: it could never match`, param, 'condition_never_matches');
    }
    return workspace.id;
  },
  api_key: async (call, reference, policyWorkspaceId, param) => {
    const key = await call.services.store.apiKeys.get(principalOf(call).organisationId, reference);
    if (!key) throw new ValidationError(`${param} names no API key of this organisation: ${reference} (give the key's id)`, param, 'condition_reference_not_found');
    if (policyWorkspaceId !== null && key.workspace_id !== null && key.workspace_id !== policyWorkspaceId) {
      throw new ValidationError(`${param} names a key of another workspace than this policy's (${policyWorkspaceId}): it could never match`, param, 'condition_never_matches');
    }
    return key.id;
  },
};

/**
 * The conditions as stored: each `value` and `excludes` that names a workspace (id or slug) or an
 * API key (id) replaced by the id the gateway compares. `metadata.*` values are free text.
 */
export async function resolveConditionReferences(call: Call, conditions: LimitCondition[], policyWorkspaceId: string | null, param = 'conditions'): Promise<LimitCondition[]> {
  const resolved: LimitCondition[] = [];
  for (const [index, condition] of conditions.entries()) {
    const resolve = resolvers[condition.key];
    if (!resolve) {
      resolved.push(condition);
      continue;
    }
    const out: LimitCondition = { ...condition };
    if (condition.value !== undefined && condition.value !== ANY) out.value = await resolve(call, condition.value, policyWorkspaceId, `${param}[${index}].value`);
    // An empty excludes excludes nothing (conditionsMatch); an excluded reference may be outside the policy's workspace.
    if (condition.excludes) out.excludes = await resolve(call, condition.excludes, null, `${param}[${index}].excludes`);
    resolved.push(out);
  }
  return resolved;
}
