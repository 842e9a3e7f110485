/**
 * Evaluates limits for one request: rate limits before the upstream call, budgets reserved
 * before it and settled with the real usage after it. Every check is one atomic
 * check-and-increment in the CounterStore, so across any number of gw instances sharing one
 * Redis no more than the limit is ever admitted. A request refused by a later policy gives back
 * what earlier ones reserved. When the counter store cannot answer, `failOpen` decides: let the
 * request through (logged) or refuse it with 503 (logged); never a crash.
 */
import { ApiError, RateLimitedError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { CounterStore } from './counter-store.js';
import { NANO_USD_PER_USD } from './pricing/cost.js';
import { conditionsMatch, entityOf } from './policy-match.js';
import type { OrganisationPolicies, RateLimitPolicy, RequestFacts, UsageLimitPolicy } from '../../core/limit-policy-types.js';
import { rateWindow, usagePeriod, type Window } from './windows.js';

export type Measure = 'requests' | 'tokens' | 'cost';

/**
 * What one request is expected to use (reserve) or did use (settle); cost in nano-USD.
 * `unpriced`: the price catalog does not know the model, so the cost (0) counts nothing.
 */
export type Amounts = Record<Measure, number> & { unpriced?: boolean };

export interface Reservation {
  key: string;
  measure: Measure;
  reserved: number;
}

/** Ends at the last period's end plus a day, so a late settle still finds its counter. */
const KEY_GRACE_MS = 86_400_000;
/** Counters of periods that never reset still expire after a year without a request. */
const FOREVER_TTL_MS = 366 * 86_400_000;

export function usageCounterKey(policyId: string, period: Window, entityId: string): string {
  return `limits:u:${policyId}:${period.start}:${entityId}`;
}

/** Requests a cost budget matched but could not price (unknown model): counted beside the budget, never in it. */
export function unpricedCounterKey(policyId: string, period: Window, entityId: string): string {
  return `${usageCounterKey(policyId, period, entityId)}:unpriced`;
}

export function usageIndexKey(policyId: string, period: Window): string {
  return `limits:u:${policyId}:${period.start}:entities`;
}

function rateCounterKey(policyId: string, window: Window, entityId: string): string {
  return `limits:r:${policyId}:${window.start}:${entityId}`;
}

/** Limits as counted: cost in integer nano-USD. */
function countedLimit(policy: UsageLimitPolicy): number {
  return policy.type === 'cost' ? Math.round(policy.credit_limit * NANO_USD_PER_USD) : policy.credit_limit;
}

function shown(measure: Measure, value: number): string {
  return measure === 'cost' ? String(Math.max(0, value) / NANO_USD_PER_USD) : String(Math.max(0, value));
}

/** The 429's headers: x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset (seconds), retry-after. */
function limitHeaders(policyId: string, measure: Measure, limit: number, used: number, resetAt: number | null, now: number): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': shown(measure, limit),
    'x-ratelimit-remaining': shown(measure, limit - used),
    'x-gw-limit-policy': policyId,
  };
  if (resetAt !== null) {
    const seconds = String(Math.max(1, Math.ceil((resetAt - now) / 1000)));
    headers['x-ratelimit-reset'] = seconds;
    headers['retry-after'] = seconds;
  }
  return headers;
}

export interface LimitsEngineOptions {
  failOpen: boolean;
  logger: Logger;
  now: () => number;
}

export class LimitsEngine {
  constructor(
    private readonly counters: CounterStore,
    private readonly options: LimitsEngineOptions,
  ) {}

  /**
   * Rate limits of one target: `llm` for model calls (requests count 1, tokens reserve the
   * estimate), `mcp_tools` for MCP tool calls (each counts 1 request and no tokens).
   */
  async checkRateLimits(policies: OrganisationPolicies, facts: RequestFacts, expected: Amounts, target: RateLimitPolicy['target'] = 'llm'): Promise<Reservation[]> {
    const now = this.options.now();
    const checks = policies.rate
      .filter((policy) => policy.target === target && conditionsMatch(policy.conditions, facts))
      .map((policy) => this.rateCheck(policy, facts, expected, now));
    return this.reserveAll(checks);
  }

  /** Budgets: each matching usage-limit policy reserves what the request is expected to use. */
  async reserveUsage(policies: OrganisationPolicies, facts: RequestFacts, expected: Amounts): Promise<Reservation[]> {
    const now = this.options.now();
    const checks = policies.usage.filter((policy) => conditionsMatch(policy.conditions, facts)).map((policy) => this.usageCheck(policy, facts, expected, now));
    return this.reserveAll(checks);
  }

  /** Corrects each reservation to the real usage (0 for tokens and cost when the call failed). */
  async settle(reservations: readonly Reservation[], actual: Amounts): Promise<void> {
    try {
      await Promise.all(reservations.map((r) => this.counters.settle(r.key, actual[r.measure] - r.reserved)));
    } catch (error) {
      // The answer is already on its way; a lost correction is logged, never surfaced.
      this.options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'limit settle failed');
    }
  }

  private rateCheck(policy: RateLimitPolicy, facts: RequestFacts, expected: Amounts, now: number): Check {
    const window = rateWindow(policy.unit, now);
    const entity = entityOf(policy.group_by, facts);
    const measure: Measure = policy.type;
    return {
      policyId: policy.id,
      key: rateCounterKey(policy.id, window, entity.id),
      measure,
      amount: expected[measure],
      limit: policy.value,
      ttlMs: window.end - now + KEY_GRACE_MS,
      resetAt: window.end,
      code: 'rate_limit_exceeded',
      what: `Rate limit of ${policy.value} ${policy.type} per ${policy.unit}`,
    };
  }

  private usageCheck(policy: UsageLimitPolicy, facts: RequestFacts, expected: Amounts, now: number): Check {
    const period = usagePeriod(policy, now);
    const entity = entityOf(policy.group_by, facts);
    const measure: Measure = policy.type;
    return {
      policyId: policy.id,
      key: usageCounterKey(policy.id, period, entity.id),
      index: { key: usageIndexKey(policy.id, period), member: entity.id },
      unpricedKey: measure === 'cost' && expected.unpriced ? unpricedCounterKey(policy.id, period, entity.id) : undefined,
      measure,
      amount: expected[measure],
      limit: countedLimit(policy),
      ttlMs: period.end === null ? FOREVER_TTL_MS : period.end - now + KEY_GRACE_MS,
      resetAt: period.end,
      code: 'usage_limit_exceeded',
      what: `Usage limit of ${policy.credit_limit}${policy.type === 'cost' ? ' USD' : ` ${policy.type}`}`,
    };
  }

  private async reserveAll(checks: Check[]): Promise<Reservation[]> {
    const reserved: Reservation[] = [];
    const run = async () => {
      for (const check of checks) {
        const result = await this.counters.reserve(check.key, check.amount, check.limit, check.ttlMs, check.index);
        if (!result.allowed) {
          await Promise.all(reserved.map((r) => this.counters.settle(r.key, -r.reserved)));
          const now = this.options.now();
          throw new RateLimitedError(
            `${check.what} reached (policy ${check.policyId})`,
            limitHeaders(check.policyId, check.measure, check.limit, result.used, check.resetAt, now),
            check.code,
          );
        }
        reserved.push({ key: check.key, measure: check.measure, reserved: check.amount });
        if (check.unpricedKey) await this.counters.reserve(check.unpricedKey, 1, Number.MAX_SAFE_INTEGER, check.ttlMs);
      }
      return reserved;
    };
    return this.guard(run(), []);
  }

  /** Counter-store failures: logged, then let through (fail open) or refused with 503 (fail closed). */
  private async guard<T>(work: Promise<T>, whenOpen: T): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.error({ err: message, failOpen: this.options.failOpen }, 'limit counters unavailable');
      if (this.options.failOpen) return whenOpen;
      throw new ApiError(503, 'limits_unavailable', 'Usage and rate limits cannot be checked right now; try again shortly', 'api_error');
    }
  }
}

interface Check {
  policyId: string;
  key: string;
  index?: { key: string; member: string };
  /** Set when a cost budget cannot price the request: it is counted there instead. */
  unpricedKey?: string;
  measure: Measure;
  amount: number;
  limit: number;
  ttlMs: number;
  resetAt: number | null;
  code: string;
  what: string;
}
