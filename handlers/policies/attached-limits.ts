/**
 * The `usage_limits` and `rate_limits` fields of API keys, workspaces and providers: checked
 * like a policy's, stored on the record, shown in its answers.
 */
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { assertUsageRules } from './usage-rules.js';

/** The limit fields an create or update names (absent ones stay absent, so updates leave them alone). */
export function attachedLimitsInput(input: AttachedLimits): AttachedLimits {
  const limits: AttachedLimits = {};
  if (input.usage_limits !== undefined) {
    const usage = input.usage_limits;
    if (usage) {
      assertUsageRules(
        { type: usage.type, credit_limit: usage.credit_limit, alert_threshold: usage.alert_threshold ?? null, periodic_reset: usage.periodic_reset ?? null, periodic_reset_days: usage.periodic_reset_days ?? null },
        'usage_limits.',
      );
    }
    limits.usage_limits = usage;
  }
  if (input.rate_limits !== undefined) limits.rate_limits = input.rate_limits;
  return limits;
}

export function presentAttachedLimits(record: AttachedLimits): Required<AttachedLimits> {
  return { usage_limits: record.usage_limits ?? null, rate_limits: record.rate_limits ?? null };
}
