import { ValidationError } from '../../core/errors.js';

export interface RotationInput {
  rotation_period?: 'weekly' | 'monthly' | null;
  rotation_period_days?: number | null;
}

const PERIOD_DAYS = { weekly: 7, monthly: 30 } as const;

/** Days between rotations, or null for none; `rotation_period` and `rotation_period_days` never both. */
export function rotationDays(input: RotationInput): number | null {
  if (input.rotation_period && input.rotation_period_days) {
    throw new ValidationError('Give rotation_period or rotation_period_days, not both', 'rotation_period_days', 'conflicting_rotation_policy');
  }
  if (input.rotation_period) return PERIOD_DAYS[input.rotation_period];
  return input.rotation_period_days ?? null;
}

export function nextRotationAt(days: number | null, from: number): string | null {
  return days === null ? null : new Date(from + days * 86_400_000).toISOString();
}

/** The organisation's user_api_key_rotation_period: weekly/monthly are kept as 7/30 days, the one form keys are compared against. */
export function normaliseRotationPeriod(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : PERIOD_DAYS[value as keyof typeof PERIOD_DAYS];
}
