import { ValidationError } from '../../server/errors.js';

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
