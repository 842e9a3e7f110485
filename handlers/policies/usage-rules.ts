import { ValidationError } from '../../core/errors.js';
import type { UsageLimitsPolicyRecord } from '../../store/repositories/limit-policies.js';

type Rules = Pick<UsageLimitsPolicyRecord, 'type' | 'credit_limit' | 'alert_threshold' | 'periodic_reset' | 'periodic_reset_days'>;

/** What the spec cannot say: rules across fields of a usage-limits policy (after an update is merged). */
export function assertUsageRules(policy: Rules, paramPrefix = ''): void {
  if (policy.periodic_reset !== null && policy.periodic_reset_days !== null) {
    throw new ValidationError('Give periodic_reset or periodic_reset_days, not both', `${paramPrefix}periodic_reset_days`, 'conflicting_reset_rules');
  }
  if (policy.type !== 'cost' && !Number.isInteger(policy.credit_limit)) {
    throw new ValidationError(`credit_limit counts ${policy.type} and must be a whole number`, `${paramPrefix}credit_limit`);
  }
  if (policy.alert_threshold !== null && policy.alert_threshold > policy.credit_limit) {
    throw new ValidationError('alert_threshold must not exceed credit_limit', `${paramPrefix}alert_threshold`);
  }
}
