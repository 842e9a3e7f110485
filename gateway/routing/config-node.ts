/**
 * A config as the router reads it: one node of the strategy tree. The spec's Config schema
 * (spec/schemas/configs.yaml, compiled in gateway/config-schema.ts) validates the document
 * before it gets here, so this type only names the keys routing and caching act on.
 */
export type StrategyMode = 'single' | 'fallback' | 'loadbalance' | 'conditional';

export interface RetrySettings {
  /** Retries after the first attempt, 0 to 5. */
  attempts?: number;
  on_status_codes?: number[];
  use_retry_after_header?: boolean;
  /** Cap on the summed waits between attempts of one target, in ms. */
  max_retry_wait_ms?: number;
}

export interface EmbeddingSettings {
  provider?: string;
  model: string;
  api_key?: string;
  virtual_key?: string;
  custom_host?: string;
}

export interface CacheSettings {
  mode: 'simple' | 'semantic';
  /** Seconds an entry lives. */
  max_age?: number;
  embedding?: EmbeddingSettings;
  /** Cosine similarity a semantic match needs, 0..1 (default 0.95). */
  similarity_threshold?: number;
}

export interface ConditionRule {
  query: Record<string, unknown>;
  /** The `name` of the target to use when the query matches. */
  then: string;
}

export interface ConfigNode {
  strategy?: {
    mode: StrategyMode;
    on_status_codes?: number[];
    conditions?: ConditionRule[];
    default?: string;
  };
  targets?: ConfigNode[];
  name?: string;
  weight?: number;
  provider?: string;
  api_key?: string;
  virtual_key?: string;
  custom_host?: string;
  forward_headers?: string[];
  override_params?: Record<string, unknown>;
  retry?: RetrySettings;
  request_timeout?: number;
  cache?: CacheSettings;
  input_guardrails?: unknown[];
  output_guardrails?: unknown[];
  strict_openai_compliance?: boolean;
  /** Cloud fields (Azure, Vertex, Bedrock) and anything else provider-specific travel with the credentials. */
  [key: string]: unknown;
}
