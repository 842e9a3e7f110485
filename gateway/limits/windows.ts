/**
 * Time windows, all in UTC. Rate limits use fixed windows aligned to the minute, hour or day.
 * Usage-limit periods start at the policy's anchor (the UTC midnight of its creation day) and roll
 * every N days (weekly is 7), or at each calendar month's first day; without a reset rule the
 * period never ends. Counter keys carry the window start, so a new window is a fresh counter.
 */
import type { RateUnit } from '../../core/limit-policy-types.js';

export const DAY_MS = 86_400_000;
const UNIT_MS: Record<RateUnit, number> = { minute: 60_000, hour: 3_600_000, day: DAY_MS };

export interface Window {
  start: number;
  /** Epoch ms of the next reset; null for a period that never resets. */
  end: number | null;
}

export function rateWindow(unit: RateUnit, now: number): Window & { end: number } {
  const size = UNIT_MS[unit];
  const start = Math.floor(now / size) * size;
  return { start, end: start + size };
}

export function utcMidnight(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS) * DAY_MS;
}

export interface ResetRule {
  periodic_reset: 'monthly' | 'weekly' | null;
  periodic_reset_days: number | null;
  /** Epoch ms, a UTC midnight. */
  anchor: number;
}

export function usagePeriod(rule: ResetRule, now: number): Window {
  const days = rule.periodic_reset === 'weekly' ? 7 : rule.periodic_reset_days;
  if (days) {
    const size = days * DAY_MS;
    const start = rule.anchor + Math.max(0, Math.floor((now - rule.anchor) / size)) * size;
    return { start, end: start + size };
  }
  if (rule.periodic_reset === 'monthly') {
    const date = new Date(Math.max(now, rule.anchor));
    const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    return { start: Math.max(monthStart, rule.anchor), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
  }
  return { start: rule.anchor, end: null };
}
