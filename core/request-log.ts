/**
 * One gateway request as it is logged. The gateway fills an entry for every request
 * (success, error, cache hit, guardrail denial, stream) and hands it to the RequestLogSink,
 * which writes in batches off the hot path.
 */
/** What kind of call a log row records; each gateway operation names its own. */
export type LogEndpoint = 'chat.completions' | 'prompts.completions' | 'mcp' | 'proxy' | 'embeddings' | 'completions' | 'responses' | 'messages' | 'guardrails.invoke' | 'a2a';

/** The prompt version a prompt completion ran, and the label its address named. */
export interface PromptRun {
  id: string;
  version: number;
  label: string | null;
}

export interface RequestLogEntry {
  id: string;
  endpoint: LogEndpoint;
  /** Set by prompt completions; its id is also the row's prompt_id (as the `_prompt` metadata key sets it). */
  prompt?: PromptRun;
  trace_id: string;
  span_id: string | null;
  parent_span_id: string | null;
  span_name: string | null;
  /** Epoch ms when the request arrived. */
  created_at: number;
  organisation_id: string;
  workspace_id: string;
  /** The API key's id; '' when the caller used another credential. */
  api_key_id: string;
  /** The user a JWT, session or OAuth token named (the JWT's user claim); null for API keys. */
  auth_subject?: string | null;
  /** Saved config id, when a saved config routed the request. */
  config_id: string | null;
  /** The provider and model that served (or last failed). */
  provider: string | null;
  model: string | null;
  /** HTTP status answered to the client. */
  status: number;
  latency_ms: number;
  /** Time to first byte of the answer, for streams. */
  first_byte_ms: number | null;
  stream: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Cost in USD (0 when unpriced). */
  cost: number;
  /** The price catalog does not know the model, so `cost` counts nothing (not "free"). */
  cost_unpriced?: boolean;
  cache_status: 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'REFRESH' | 'DISABLED';
  retry_count: number;
  /** The config targets tried, in order, by path as x-gw-last-used-option-index names them ("0", "1.0", ...), with their outcome. */
  route: Array<{ path: string; provider: string; status: number | null; error?: string }>;
  metadata: Record<string, string>;
  /** Request headers worth keeping; sensitive ones hashed. */
  request_headers: Record<string, string>;
  request_body: unknown;
  response_body: unknown;
  /** `type` is the error body's type (guardrail_error for a 446, upstream_error, ...); custom logs may omit it. */
  error: { code: string; message: string; type?: string } | null;
  guardrail_results: unknown[] | null;
  /** Time spent in upstream calls, all attempts (metrics and the request log line; not stored). */
  upstream_ms?: number;
}

export interface RequestLogSink {
  /** Queues the entry; never blocks the request and never throws. */
  record(entry: RequestLogEntry): void;
  /** Writes everything queued (tests). */
  flush(): Promise<void>;
  /**
   * Shutdown: writes everything queued, retrying failed writes for up to `timeoutMs`, says how
   * many rows it wrote and whether any were not, then releases the writer.
   */
  close(timeoutMs?: number): Promise<void>;
  /** True while the oldest entry not yet written is older than the writer allows (/ready fails then). */
  behind?(): boolean;
}
