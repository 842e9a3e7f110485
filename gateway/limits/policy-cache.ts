/**
 * The policies the gateway enforces, read from memory: one load per organisation, emptied when
 * the Admin API publishes LIMIT_POLICIES_TOPIC (locally at once, on other instances via Redis).
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { RateLimitsPolicyRecord, UsageLimitsPolicyRecord } from '../../store/repositories/limit-policies.js';
import type { Store } from '../../store/store.js';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { SAVED_RESOURCE_TOPICS } from '../saved-resources-store.js';
import { attachedPolicies, mergePolicies, type LimitOwner, type LimitOwnerKind } from './attached-policies.js';
import type { OrganisationPolicies, RateLimitPolicy, UsageLimitPolicy } from '../../core/limit-policy-types.js';

export const LIMIT_POLICIES_TOPIC = 'limit_policies';

/** A safety net only: invalidation is what makes changes visible at once. */
const TTL_MS = 5 * 60_000;

export function usagePolicyOf(record: UsageLimitsPolicyRecord): UsageLimitPolicy {
  return {
    id: record.id,
    type: record.type,
    credit_limit: record.credit_limit,
    alert_threshold: record.alert_threshold,
    periodic_reset: record.periodic_reset,
    periodic_reset_days: record.periodic_reset_days,
    anchor: Date.parse(record.reset_anchor),
    conditions: record.conditions,
    group_by: record.group_by,
  };
}

export function ratePolicyOf(record: RateLimitsPolicyRecord): RateLimitPolicy {
  return { id: record.id, type: record.type, unit: record.unit, value: record.value, target: record.target, conditions: record.conditions, group_by: record.group_by };
}

/** Policies of a workspace apply to that workspace's requests only. */
function forWorkspace<R extends { workspace_id: string | null }>(records: R[]): Array<R & { scope: Array<{ key: string; value: string }> }> {
  return records.map((record) => ({ ...record, scope: record.workspace_id ? [{ key: 'workspace_id', value: record.workspace_id }] : [] }));
}

/** Whose limits apply to one request, besides its organisation's policies. */
export interface LimitOwners {
  organisationId: string;
  apiKeyId: string;
  workspaceId: string;
}

const NONE: OrganisationPolicies = { usage: [], rate: [] };

export class LimitPolicies {
  private readonly cache = new InvalidatedCache<OrganisationPolicies>(10_000, TTL_MS);
  /** Limits set on keys, workspaces and providers, by kind and id. */
  private readonly attached = new InvalidatedCache<OrganisationPolicies>(100_000, TTL_MS);
  /** What forRequest answers, per organisation, key and workspace: one lookup per request instead of three and a merge. */
  private readonly merged = new InvalidatedCache<OrganisationPolicies>(100_000, TTL_MS);

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
  ) {
    bus.subscribe(LIMIT_POLICIES_TOPIC, () => {
      this.cache.clear();
      this.attached.clear();
      this.merged.clear();
    });
    // Key and provider edits are published on their own topics already; workspace edits use LIMIT_POLICIES_TOPIC.
    bus.subscribe(API_KEYS_TOPIC, () => {
      this.attached.clear();
      this.merged.clear();
    });
    bus.subscribe(SAVED_RESOURCE_TOPICS.providers, () => this.attached.clear());
  }

  /** The organisation's policies plus the limits set on the request's key and workspace. */
  async forRequest(owners: LimitOwners): Promise<OrganisationPolicies> {
    const { organisationId, apiKeyId, workspaceId } = owners;
    return (await this.merged.get(`${organisationId}\n${apiKeyId}\n${workspaceId}`, () => this.mergedFor(owners))) ?? NONE;
  }

  private async mergedFor(owners: LimitOwners): Promise<OrganisationPolicies> {
    const { organisationId, apiKeyId, workspaceId } = owners;
    const { apiKeys, workspaces } = this.store;
    const [organisation, key, workspace] = await Promise.all([
      this.of(organisationId),
      this.ownerPolicies('api_key', apiKeyId, async () => ownerOf(await apiKeys.get(organisationId, apiKeyId), (r) => r.id)),
      this.ownerPolicies('workspace_id', workspaceId, async () => ownerOf(await workspaces.get(organisationId, workspaceId), (r) => r.id)),
    ]);
    return mergePolicies(organisation, key, workspace);
  }

  /** The limits set on one saved provider: applied per attempt at a routing target using it. */
  forProvider(organisationId: string, workspaceId: string, slug: string): Promise<OrganisationPolicies> {
    return this.ownerPolicies('provider', `${workspaceId}/${slug}`, async () => ownerOf(await this.store.providers.find(organisationId, slug, workspaceId), (r) => r.slug));
  }

  private async ownerPolicies(kind: LimitOwnerKind, id: string, load: () => Promise<LimitOwner | undefined>): Promise<OrganisationPolicies> {
    return (await this.attached.get(`${kind}\n${id}`, async () => {
      const owner = await load();
      return owner ? attachedPolicies(kind, owner) : NONE;
    })) ?? NONE;
  }

  async of(organisationId: string): Promise<OrganisationPolicies> {
    return (await this.cache.get(organisationId, () => this.load(organisationId))) ?? { usage: [], rate: [] };
  }

  private async load(organisationId: string): Promise<OrganisationPolicies> {
    const [usage, rate] = await Promise.all([this.store.usageLimitsPolicies.active(organisationId), this.store.rateLimitsPolicies.active(organisationId)]);
    return {
      usage: forWorkspace(usage).map((record) => ({ ...usagePolicyOf(record), conditions: [...record.scope, ...record.conditions] })),
      rate: forWorkspace(rate).map((record) => ({ ...ratePolicyOf(record), conditions: [...record.scope, ...record.conditions] })),
    };
  }
}

function ownerOf<R extends { id: string; created_at: string; usage_limits?: LimitOwner['usage_limits']; rate_limits?: LimitOwner['rate_limits'] }>(
  record: R | undefined,
  match: (record: R) => string,
): LimitOwner | undefined {
  if (!record || (!record.usage_limits && !record.rate_limits?.length)) return undefined;
  return { id: record.id, match: match(record), created_at: record.created_at, usage_limits: record.usage_limits, rate_limits: record.rate_limits };
}
