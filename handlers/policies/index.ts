/**
 * Usage-limits and rate-limits policies. Every write publishes LIMIT_POLICIES_TOPIC so each gw
 * instance's in-memory policy cache reloads; usage itself lives in the limit counters.
 */
import { unpricedCounterKey, usageCounterKey, usageIndexKey } from '../../gateway/limits/limits-engine.js';
import { LIMIT_POLICIES_TOPIC, usagePolicyOf } from '../../gateway/limits/policy-cache.js';
import { groupOfEntity } from '../../gateway/limits/policy-match.js';
import { usagePeriod, utcMidnight } from '../../gateway/limits/windows.js';
import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import type { RateLimitsPolicyRecord, UsageLimitsPolicyRecord } from '../../store/repositories/limit-policies.js';
import { pageOfKeys } from '../../store/pagination.js';
import { body, pathId, query, type Handler } from '../types.js';
import { listWorkspaceFilter, targetWorkspaceId } from '../workspace-target.js';
import { presentEntity, presentRatePolicy, presentUsagePolicy } from './present.js';
import { assertUsageRules } from './usage-rules.js';
import { resolveConditionReferences } from './condition-references.js';

type UsageInput = Partial<Pick<UsageLimitsPolicyRecord, 'name' | 'type' | 'credit_limit' | 'alert_threshold' | 'periodic_reset' | 'periodic_reset_days' | 'conditions' | 'group_by'>> & {
  workspace_id?: string;
};
type RateInput = Partial<Pick<RateLimitsPolicyRecord, 'name' | 'type' | 'unit' | 'value' | 'target' | 'conditions' | 'group_by'>> & { workspace_id?: string };

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

/** Admin keys make organisation-wide policies unless they name a workspace; workspace keys act on their own. */
async function policyWorkspace(call: Call, named: string | undefined): Promise<string | null> {
  const principal = principalOf(call);
  if (named === undefined && principal.workspaceId === null) return null;
  return targetWorkspaceId(call, principal, named);
}

function visible<R extends { workspace_id: string | null }>(call: Call, record: R | undefined, what: string, id: string): R {
  const principal = principalOf(call);
  if (!record || (principal.workspaceId !== null && record.workspace_id !== principal.workspaceId)) throw new NotFoundError(what, id);
  return record;
}

async function usagePolicy(call: Call, id: string): Promise<UsageLimitsPolicyRecord> {
  return visible(call, await call.services.store.usageLimitsPolicies.find(principalOf(call).organisationId, id), 'Usage-limits policy', id);
}

async function ratePolicy(call: Call, id: string): Promise<RateLimitsPolicyRecord> {
  return visible(call, await call.services.store.rateLimitsPolicies.find(principalOf(call).organisationId, id), 'Rate-limits policy', id);
}

const publish = (call: Call, id: string) => call.services.bus.publish(LIMIT_POLICIES_TOPIC, id);

export const createUsageLimitsPolicy: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createUsageLimitsPolicy'>(c) as UsageInput & Pick<UsageLimitsPolicyRecord, 'name' | 'type' | 'credit_limit'>;
  const rules = {
    type: input.type,
    credit_limit: input.credit_limit,
    alert_threshold: input.alert_threshold ?? null,
    periodic_reset: input.periodic_reset ?? null,
    periodic_reset_days: input.periodic_reset_days ?? null,
  };
  assertUsageRules(rules);
  const now = call.services.now();
  const workspaceId = await policyWorkspace(call, input.workspace_id);
  const record = await call.services.store.usageLimitsPolicies.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name,
      ...rules,
      reset_anchor: new Date(utcMidnight(now)).toISOString(),
      conditions: await resolveConditionReferences(call, input.conditions ?? [], workspaceId),
      group_by: input.group_by ?? [],
    },
    isoNow(call),
  );
  await publish(call, record.id);
  return { status: 201, body: presentUsagePolicy(record, now) };
};

export const listUsageLimitsPolicies: Handler = async (c, call) => {
  const principal = principalOf(call);
  const params = query<'listUsageLimitsPolicies'>(c);
  const workspace = await listWorkspaceFilter(call, principal, params.workspace_id);
  const page = await call.services.store.usageLimitsPolicies.list(principal.organisationId, { workspace_id: workspace }, params);
  return { body: { ...page, data: page.data.map((record) => presentUsagePolicy(record, call.services.now())) } };
};

export const getUsageLimitsPolicy: Handler = async (c, call) => ({ body: presentUsagePolicy(await usagePolicy(call, pathId(c)), call.services.now()) });

export const updateUsageLimitsPolicy: Handler = async (c, call) => {
  const record = await usagePolicy(call, pathId(c));
  const changes = body<'updateUsageLimitsPolicy'>(c) as UsageInput;
  const merged = { ...record, ...changes };
  assertUsageRules(merged);
  if (changes.conditions) changes.conditions = await resolveConditionReferences(call, changes.conditions, record.workspace_id);
  await call.services.store.usageLimitsPolicies.update(record.organisation_id, record.id, changes, isoNow(call));
  await publish(call, record.id);
  const updated = (await call.services.store.usageLimitsPolicies.find(record.organisation_id, record.id))!;
  return { body: presentUsagePolicy(updated, call.services.now()) };
};

export const deleteUsageLimitsPolicy: Handler = async (c, call) => {
  const record = await usagePolicy(call, pathId(c));
  await call.services.store.usageLimitsPolicies.delete(record.organisation_id, record.id);
  await publish(call, record.id);
  return { body: { id: record.id, object: 'usage_limits_policy', deleted: true } };
};

export const listUsageLimitsEntities: Handler = async (c, call) => {
  const record = await usagePolicy(call, pathId(c));
  const period = usagePeriod(usagePolicyOf(record), call.services.now());
  const counters = call.services.limitCounters;
  // Only the page's counters are read: a policy grouped by key or user can count thousands.
  const page = pageOfKeys(await counters.members(usageIndexKey(record.id, period)), query<'listUsageLimitsEntities'>(c));
  const used = await counters.read(page.keys.map((id) => usageCounterKey(record.id, period, id)));
  const unpriced = record.type === 'cost' ? await counters.read(page.keys.map((id) => unpricedCounterKey(record.id, period, id))) : [];
  const data = page.keys.flatMap((id, index) => {
    const group = groupOfEntity(record.group_by, id);
    return group ? [presentEntity(record, id, group, used[index]!, period.end, unpriced[index] ?? 0)] : [];
  });
  return { body: { object: 'list', data, has_more: page.has_more, next_cursor: page.next_cursor } };
};

export const resetUsageLimitsEntity: Handler = async (c, call) => {
  const record = await usagePolicy(call, pathId(c));
  const entityId = String(c.request.params.entityId);
  const group = groupOfEntity(record.group_by, entityId);
  if (!group) throw new NotFoundError('Entity', entityId);
  const period = usagePeriod(usagePolicyOf(record), call.services.now());
  await call.services.limitCounters.remove(usageCounterKey(record.id, period, entityId));
  await call.services.limitCounters.remove(unpricedCounterKey(record.id, period, entityId));
  return { body: presentEntity(record, entityId, group, 0, period.end, 0) };
};

export const createRateLimitsPolicy: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createRateLimitsPolicy'>(c) as RateInput & Pick<RateLimitsPolicyRecord, 'name' | 'type' | 'unit' | 'value'>;
  const workspaceId = await policyWorkspace(call, input.workspace_id);
  const record = await call.services.store.rateLimitsPolicies.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name,
      type: input.type,
      unit: input.unit,
      value: input.value,
      target: input.target ?? 'llm',
      conditions: await resolveConditionReferences(call, input.conditions ?? [], workspaceId),
      group_by: input.group_by ?? [],
    },
    isoNow(call),
  );
  await publish(call, record.id);
  return { status: 201, body: presentRatePolicy(record) };
};

export const listRateLimitsPolicies: Handler = async (c, call) => {
  const principal = principalOf(call);
  const params = query<'listRateLimitsPolicies'>(c);
  const workspace = await listWorkspaceFilter(call, principal, params.workspace_id);
  const page = await call.services.store.rateLimitsPolicies.list(principal.organisationId, { workspace_id: workspace }, params);
  return { body: { ...page, data: page.data.map(presentRatePolicy) } };
};

export const getRateLimitsPolicy: Handler = async (c, call) => ({ body: presentRatePolicy(await ratePolicy(call, pathId(c))) });

async function applyRateUpdate(c: Parameters<Handler>[0], call: Call): Promise<RateLimitsPolicyRecord> {
  const record = await ratePolicy(call, pathId(c));
  const changes = body<'updateRateLimitsPolicy'>(c) as RateInput;
  if (changes.conditions) changes.conditions = await resolveConditionReferences(call, changes.conditions, record.workspace_id);
  await call.services.store.rateLimitsPolicies.update(record.organisation_id, record.id, changes, isoNow(call));
  await publish(call, record.id);
  return (await call.services.store.rateLimitsPolicies.find(record.organisation_id, record.id))!;
}

export const updateRateLimitsPolicy: Handler = async (c, call) => ({ body: presentRatePolicy(await applyRateUpdate(c, call)) });

/** `PUT {control_url}/policies/rate-limits/{id}`: the same update, answered with an empty object. */
export const putRateLimitsPolicy: Handler = async (c, call) => {
  await applyRateUpdate(c, call);
  return { body: {} };
};

export const deleteRateLimitsPolicy: Handler = async (c, call) => {
  const record = await ratePolicy(call, pathId(c));
  await call.services.store.rateLimitsPolicies.delete(record.organisation_id, record.id);
  await publish(call, record.id);
  return { body: { id: record.id, object: 'rate_limits_policy', deleted: true } };
};
