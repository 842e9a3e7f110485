import type { components } from '../../generated/types.js';
import { NANO_USD_PER_USD } from '../../gateway/limits/pricing/cost.js';
import { usagePolicyOf } from '../../gateway/limits/policy-cache.js';
import { usagePeriod } from '../../gateway/limits/windows.js';
import type { RateLimitsPolicyRecord, UsageLimitsPolicyRecord } from '../../store/repositories/limit-policies.js';

type UsageLimitsPolicy = components['schemas']['UsageLimitsPolicy'];
type UsageLimitsEntity = components['schemas']['UsageLimitsEntity'];
type RateLimitsPolicy = components['schemas']['RateLimitsPolicy'];

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

/** The reset dates are derived from the clock: the current period's start and end. */
export function presentUsagePolicy(record: UsageLimitsPolicyRecord, now: number): UsageLimitsPolicy {
  const policy = usagePolicyOf(record);
  const period = usagePeriod(policy, now);
  return {
    id: record.id,
    object: 'usage_limits_policy',
    name: record.name,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    type: record.type,
    credit_limit: record.credit_limit,
    alert_threshold: record.alert_threshold,
    periodic_reset: record.periodic_reset,
    periodic_reset_days: record.periodic_reset_days,
    next_usage_reset_at: iso(period.end),
    last_reset_at: period.start > policy.anchor ? iso(period.start) : null,
    conditions: record.conditions,
    group_by: record.group_by,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** Counted usage in the policy's unit: cost counters hold nano-USD. */
export function presentEntity(record: UsageLimitsPolicyRecord, entityId: string, group: Record<string, string>, counted: number, nextReset: number | null, unpriced: number): UsageLimitsEntity {
  const usage = record.type === 'cost' ? counted / NANO_USD_PER_USD : counted;
  return {
    ...(record.type === 'cost' ? { unpriced_requests: unpriced } : {}),
    entity_id: entityId,
    group,
    usage,
    credit_limit: record.credit_limit,
    remaining: Math.max(0, record.credit_limit - usage),
    alert_threshold_reached: record.alert_threshold !== null && usage >= record.alert_threshold,
    next_usage_reset_at: iso(nextReset),
  };
}

export function presentRatePolicy(record: RateLimitsPolicyRecord): RateLimitsPolicy {
  return {
    id: record.id,
    object: 'rate_limits_policy',
    name: record.name,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    type: record.type,
    unit: record.unit,
    value: record.value,
    target: record.target,
    conditions: record.conditions,
    group_by: record.group_by,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
