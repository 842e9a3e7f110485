/**
 * The control plane's side of shared limits: a data plane runs each counter operation of its
 * limits engine here, on this gw's own counters (Redis across instances, or memory), so a budget
 * or rate limit holds across every plane exactly as across instances. A deployment key touches
 * only counters of its own organisation's policies, and cannot reset one.
 */
import type { Call } from '../../core/call.js';
import { ApiError, ForbiddenError, ValidationError } from '../../core/errors.js';
import { CounterStoreUnavailable } from '../../gateway/limits/redis-counter-store.js';
import { body, type Handler, type Reply } from '../types.js';
import { callingDeployment } from './calling-deployment.js';

interface CounterOperation {
  op: 'reserve' | 'settle' | 'read' | 'members';
  key?: string;
  amount?: number;
  limit?: number;
  ttl_ms?: number;
  index?: { key: string; member: string };
  delta?: number;
  keys?: string[];
}

/** Counter keys are `limits:u:<policy id>:...` (budgets) or `limits:r:<policy id>:...` (rate limits). */
const POLICY_TABLES = { u: 'usage_limits_policies', r: 'rate_limits_policies' } as const;

async function assertOwnCounters(call: Call, organisationId: string, keys: string[]): Promise<void> {
  const checked = new Set<string>();
  for (const key of keys) {
    const [prefix, kind, policyId] = key.split(':');
    const table = kind === 'u' || kind === 'r' ? POLICY_TABLES[kind] : undefined;
    if (prefix !== 'limits' || !table || !policyId) throw new ValidationError('Not a limit counter key', 'key', 'invalid_counter_key');
    if (checked.has(`${kind}:${policyId}`)) continue;
    const owned = await call.services.db(table).where({ id: policyId, organisation_id: organisationId }).first('id');
    if (!owned) throw new ForbiddenError('The counter belongs to no policy of this deployment organisation', 'not_your_counter');
    checked.add(`${kind}:${policyId}`);
  }
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new ValidationError(`${name} is required for this operation`, name);
  return value;
}

export const deploymentCounters: Handler = async (c, call): Promise<Reply> => {
  const deployment = await callingDeployment(call, 'use the limit counters');
  const input = body<'deploymentCounters'>(c) as CounterOperation;
  try {
    return await run(call, deployment.organisation_id, input);
  } catch (error) {
    // This gw's own counters (its Redis) are down: the data plane treats it as an outage of the control plane.
    if (error instanceof CounterStoreUnavailable) throw new ApiError(503, 'limits_unavailable', 'The control plane cannot reach its limit counters right now', 'api_error');
    throw error;
  }
};

async function run(call: Call, organisationId: string, input: CounterOperation): Promise<Reply> {
  const counters = call.services.limitCounters;
  switch (input.op) {
    case 'reserve': {
      const key = required(input.key, 'key');
      await assertOwnCounters(call, organisationId, [key, ...(input.index ? [input.index.key] : [])]);
      const result = await counters.reserve(key, required(input.amount, 'amount'), required(input.limit, 'limit'), required(input.ttl_ms, 'ttl_ms'), input.index);
      return { body: { allowed: result.allowed, used: result.used } };
    }
    case 'settle': {
      const key = required(input.key, 'key');
      await assertOwnCounters(call, organisationId, [key]);
      await counters.settle(key, required(input.delta, 'delta'));
      return { body: {} };
    }
    case 'read': {
      const keys = required(input.keys, 'keys');
      await assertOwnCounters(call, organisationId, keys);
      return { body: { values: await counters.read(keys) } };
    }
    case 'members': {
      const key = required(input.key, 'key');
      await assertOwnCounters(call, organisationId, [key]);
      return { body: { members: await counters.members(key) } };
    }
  }
}
