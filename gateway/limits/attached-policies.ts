/**
 * Limits set on an API key, workspace or provider record become policies of the engine's own
 * shape, conditioned on that record, so one engine enforces them all. Their reset periods count
 * from the record's creation day.
 */
import type { AttachedLimits, OrganisationPolicies } from '../../core/limit-policy-types.js';
import { utcMidnight } from './windows.js';

export type LimitOwnerKind = 'api_key' | 'workspace_id' | 'provider';

export interface LimitOwner extends AttachedLimits {
  /** What the request facts hold for this owner: the key id, the workspace id, the provider slug. */
  match: string;
  /** Stable id for counter keys. */
  id: string;
  created_at: string;
}

export function attachedPolicies(kind: LimitOwnerKind, owner: LimitOwner): OrganisationPolicies {
  const conditions = [{ key: kind, value: owner.match }];
  const base = `${kind}:${owner.id}`;
  const usage = owner.usage_limits;
  return {
    usage: usage
      ? [
          {
            id: base,
            type: usage.type,
            credit_limit: usage.credit_limit,
            alert_threshold: usage.alert_threshold ?? null,
            periodic_reset: usage.periodic_reset ?? null,
            periodic_reset_days: usage.periodic_reset_days ?? null,
            anchor: utcMidnight(Date.parse(owner.created_at)),
            conditions,
            group_by: [],
          },
        ]
      : [],
    rate: (owner.rate_limits ?? []).map((limit) => ({ id: `${base}:${limit.type}-per-${limit.unit}`, ...limit, target: 'llm' as const, conditions, group_by: [] })),
  };
}

export function mergePolicies(...sets: OrganisationPolicies[]): OrganisationPolicies {
  return { usage: sets.flatMap((set) => set.usage), rate: sets.flatMap((set) => set.rate) };
}
