import { describe, expect, test } from 'vitest';
import { bodyProblem, configProblem } from './spec-validation';

describe("config validation against the spec's Config schema", () => {
  test('a valid config passes', () => {
    expect(configProblem(JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: '@a' }, { provider: '@b' }] }))).toBeNull();
    expect(configProblem(JSON.stringify({ retry: { attempts: 3 }, cache: { mode: 'simple', max_age: 60 }, provider: '@a' }))).toBeNull();
  });

  test('an unknown strategy mode names the field and the allowed values', () => {
    expect(configProblem(JSON.stringify({ strategy: { mode: 'sometimes' }, targets: [{ provider: '@a' }] }))).toBe('config.strategy.mode must be one of "single", "fallback", "loadbalance", "conditional"');
  });

  test('a wrong type deep in a target names its path', () => {
    expect(configProblem(JSON.stringify({ strategy: { mode: 'loadbalance' }, targets: [{ provider: '@a', weight: 'heavy' }] }))).toMatch(/^config\.targets\.0\.weight must be number/);
  });

  test('text that is not JSON says so before any schema check', () => {
    expect(configProblem('{ "strategy": ')).toMatch(/^Not valid JSON: /);
  });
});

describe('request bodies against their spec schemas', () => {
  test('a guardrail without checks is refused, naming the missing field', () => {
    expect(bodyProblem('CreateGuardrail', { name: 'g' })).toBe('the body needs "checks"');
  });

  test('a policy with an unknown period names the allowed values', () => {
    expect(bodyProblem('CreateUsageLimitsPolicy', { name: 'p', type: 'cost', credit_limit: 5, periodic_reset: 'yearly' })).toMatch(/^periodic_reset must be one of "monthly", "weekly"/);
  });

  test('valid bodies pass', () => {
    expect(bodyProblem('CreateProvider', { name: 'p', ai_provider_id: 'openai', key: 'sk-x' })).toBeNull();
    expect(bodyProblem('CreateRateLimitsPolicy', { name: 'r', type: 'requests', unit: 'minute', value: 10 })).toBeNull();
  });
});
