/**
 * Usage-limit and rate-limit policies as the gateway evaluates them. The Admin API stores them
 * (store/repositories/*-policies.ts); API keys, workspaces and providers carrying their own
 * limits become policies of the same shape, conditioned on that key, workspace or provider.
 */
export type RateUnit = 'minute' | 'hour' | 'day';

/** `key` is `api_key`, `workspace_id`, `provider` or `metadata.<name>`. */
export interface LimitCondition {
  key: string;
  /** The request's value must equal this (`*`: any value, as long as there is one). */
  value?: string;
  /** The request's value must not equal this. */
  excludes?: string;
}

export interface GroupBy {
  key: string;
}

export interface UsageLimitPolicy {
  id: string;
  type: 'cost' | 'tokens' | 'requests';
  /** USD for cost, tokens or requests otherwise. */
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: 'monthly' | 'weekly' | null;
  periodic_reset_days: number | null;
  /** Epoch ms, the UTC midnight periods count from. */
  anchor: number;
  conditions: LimitCondition[];
  group_by: GroupBy[];
}

export interface RateLimitPolicy {
  id: string;
  type: 'requests' | 'tokens';
  unit: RateUnit;
  value: number;
  target: 'llm' | 'mcp_tools' | 'agents';
  conditions: LimitCondition[];
  group_by: GroupBy[];
}

export interface OrganisationPolicies {
  usage: UsageLimitPolicy[];
  rate: RateLimitPolicy[];
}

/** What conditions and group_by read: `api_key`, `workspace_id`, `provider`, `metadata.<name>`. */
export type RequestFacts = Record<string, string | undefined>;

/** A budget set on an API key, workspace or provider record itself. */
export type AttachedUsageLimit = Pick<UsageLimitPolicy, 'type' | 'credit_limit'> &
  Partial<Pick<UsageLimitPolicy, 'alert_threshold' | 'periodic_reset' | 'periodic_reset_days'>>;

/** A rate limit set on an API key, workspace or provider record itself. */
export type AttachedRateLimit = Pick<RateLimitPolicy, 'type' | 'unit' | 'value'>;

/** The limit fields API key, workspace and provider records carry. */
export interface AttachedLimits {
  usage_limits?: AttachedUsageLimit | null;
  rate_limits?: AttachedRateLimit[] | null;
}
