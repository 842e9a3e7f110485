import { describe, expect, test } from 'vitest';
import { workspaceRoleAllows } from '../../../core/auth/roles';
import { groupScopes, matchingPreset, periodStart, presetScopes, ROLE_PRESETS } from './key-presets';

// Every scope the spec lists, read from the generated enum through a typed record.

describe('role presets', () => {
  const preset = (id: string) => ROLE_PRESETS.find((p) => p.id === id)!;
  const all = ['audit_logs.list', 'completions.write', 'configs.create', 'logs.list', 'users.list', 'workspaces.create', 'workspaces.list'];

  test('each workspace role holds what gw lets that role hold', () => {
    for (const scope of all) {
      expect(preset('member').holds(scope), scope).toBe(workspaceRoleAllows('member', scope));
      expect(preset('manager').holds(scope), scope).toBe(workspaceRoleAllows('manager', scope));
    }
  });

  test('a preset offers only the scopes the caller holds', () => {
    expect(presetScopes(preset('admin'), ['logs.list', 'completions.write'])).toEqual(['logs.list', 'completions.write']);
    expect(presetScopes(preset('manager'), all)).toEqual(['completions.write', 'configs.create', 'logs.list', 'workspaces.list']);
    expect(presetScopes(preset('gateway'), all)).toEqual(['completions.write']);
  });

  test('the form names the preset a set of ticks matches, else custom', () => {
    expect(matchingPreset(new Set(['completions.write']), all)).toBe('gateway');
    expect(matchingPreset(new Set(all), all)).toBe('admin');
    expect(matchingPreset(new Set(['logs.list']), all)).toBe('custom');
  });

  test('scopes are grouped by resource', () => {
    expect(groupScopes(['logs.view', 'configs.list', 'logs.list'])).toEqual([
      ['configs', ['configs.list']],
      ['logs', ['logs.list', 'logs.view']],
    ]);
  });
});

describe('the budget period', () => {
  const now = new Date('2026-12-20T10:00:00Z');
  test('without a limit or with a monthly one: the calendar month (UTC)', () => {
    expect(periodStart({ created_at: '2026-01-05T00:00:00Z', usage_limits: null }, now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(periodStart({ created_at: '2026-01-05T00:00:00Z', usage_limits: { type: 'cost', credit_limit: 5, periodic_reset: 'monthly' } }, now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });
  test('weekly and every N days count from the creation day; never is since creation', () => {
    const created = '2026-12-01T15:30:00Z';
    expect(periodStart({ created_at: created, usage_limits: { type: 'cost', credit_limit: 5, periodic_reset: 'weekly' } }, now).toISOString()).toBe('2026-12-15T00:00:00.000Z');
    expect(periodStart({ created_at: created, usage_limits: { type: 'cost', credit_limit: 5, periodic_reset_days: 3 } }, now).toISOString()).toBe('2026-12-19T00:00:00.000Z');
    expect(periodStart({ created_at: created, usage_limits: { type: 'tokens', credit_limit: 5 } }, now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });
});
