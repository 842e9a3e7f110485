import type { PromptLibrary } from '../gateway/prompts/prompt-library.js';
import type { Knex } from 'knex';
import type { ResponseCache } from '../gateway/cache/response-cache.js';
import type { SemanticStore } from '../gateway/cache/semantic/semantic-store.js';
import type { RequestLogSink } from './request-log.js';
import type { LogExportRunner } from '../gateway/logs/log-export-runner.js';
import type { LogRetentionJob } from '../gateway/logs/log-retention.js';
import type { RollupBackfillJob } from '../gateway/logs/rollup-backfill-job.js';
import type { SavedResources } from '../gateway/saved-resources.js';
import type { LimitsEngine } from '../gateway/limits/limits-engine.js';
import type { LimitPolicies } from '../gateway/limits/policy-cache.js';
import type { CounterStore } from '../gateway/limits/counter-store.js';
import type { UpstreamClient } from '../gateway/transport/upstream-client.js';
import type { SavedGuardrails } from '../gateway/guardrails/saved-guardrails.js';
import type { CheckContext } from '../gateway/guardrails/check-types.js';
import type { RedisClientType } from 'redis';
import type { Store } from '../store/store.js';
import type { SecretBox } from '../store/secret-box.js';
import type { Credentials } from './auth/credentials.js';
import type { GuardedFetch } from '../gateway/outbound/guarded-fetch.js';
import type { AgentDirectory } from '../gateway/a2a/agent-directory.js';
import type { McpDirectory } from '../gateway/mcp/mcp-directory.js';
import type { OutboundGuard } from '../gateway/outbound/outbound-guard.js';
import type { PooledHttp } from '../gateway/outbound/pooled-http.js';
import type { AgentAuth } from '../gateway/agents/agent-auth.js';
import type { AgentCardFetcher } from '../gateway/agents/agent-card-fetcher.js';
import type { Config } from './config.js';
import type { InvalidationBus } from './invalidation.js';
import type { Logger } from './logger.js';
import type { GatewayMetrics } from '../gateway/telemetry/gateway-metrics.js';
import type { RequestTrace, Tracing } from '../gateway/telemetry/tracing.js';
import type { RunExecutor } from '../gateway/assistants/run-executor.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { FileStore } from '../gateway/files/file-store.js';
import type { Batches } from '../gateway/batches/batches.js';
import type { VectorStores } from '../gateway/vector-stores/vector-stores.js';
import type { McpUpstreams } from '../gateway/mcp/mcp-upstreams.js';
import type { McpClientRelay } from '../gateway/mcp/client-relay.js';

export type { RequestTrace };
export type RedisClient = RedisClientType;

/** Everything a handler or stage may use, built once per process by createServices. */
export interface Services {
  config: Readonly<Config>;
  db: Knex;
  store: Store;
  redis: RedisClient | undefined;
  bus: InvalidationBus;
  secrets: SecretBox;
  /** The one place any credential (API key, JWT, session, SCIM or OAuth token) becomes a Principal. */
  credentials: Credentials;
  /** The outbound address guard every user-saved URL is vetted with, at save and at connect. */
  outbound: OutboundGuard;
  /** fetch for identity providers and key sets: through the outbound guard unless TRUSTED_CUSTOM_HOSTS lists the host. */
  identityFetch: GuardedFetch;
  /** Reads A2A agent cards through the outbound guard, capped at 1 MB. */
  agentCards: AgentCardFetcher;
  /** Agent integrations as the A2A door reads them: cached, emptied on every write. */
  agents: AgentDirectory;
  /** Hot-path calls to A2A agents and MCP servers: kept-alive pools through the outbound guard (each door caps answers at GW_MAX_UPSTREAM_ANSWER_BYTES). */
  pooledHttp: PooledHttp;
  /** Each agent integration's credential on a call (client-credentials tokens fetched through the outbound guard and kept). */
  agentAuth: AgentAuth;
  logger: Logger;
  /** Where every gateway request's log entry goes (batched writer). */
  requestLogs: RequestLogSink;
  /** Background log exports (resumed on start). */
  logExports: LogExportRunner;
  /** Deletes logs past GW_LOG_RETENTION_DAYS, in small batches. */
  logRetention: LogRetentionJob;
  /** Counts log rows not yet in the analytics rollups, in the background at startup. */
  rollupBackfill: RollupBackfillJob;
  /** The one worker room: background jobs over pg-boss or the store (docs/workers.md). */
  jobs: JobQueue;
  /** Files (`/v1/files`, batch input and output): chunked in the store, readable by every room. */
  files: FileStore;
  /** Batches (`/v1/batches`), run line by line by the worker room through gw's own pipeline. */
  batches: Batches;
  /** Vector stores for file search: ingested by the worker room, searched from the store (docs/assistants.md). */
  vectorStores: VectorStores;
  /** Saved providers, configs and organisation settings, as the gateway reads them. */
  savedResources: SavedResources;
  /** Prompts resolved for render and completions, as the gateway reads them (memory, invalidated over the bus). */
  promptLibrary: PromptLibrary;
  /** The response cache (simple and semantic) that routing consults per target. */
  responseCache: ResponseCache;
  /** Semantic-cache vectors: persisted in the store, searched in memory, synced over the bus. */
  semanticCache: SemanticStore;
  /** Pooled keep-alive connections to providers and custom hosts. */
  upstreams: UpstreamClient;
  /** Usage-limit and rate-limit policies, as the gateway reads them (memory, invalidated over the bus). */
  limitPolicies: LimitPolicies;
  /** Limit counters: Redis when configured (shared by every instance), else this process. */
  limitCounters: CounterStore;
  /** Rate-limit checks, budget reservations and settlements over limitCounters. */
  limits: LimitsEngine;
  /** Saved guardrails and organisation defaults, as the gateway reads them (memory, invalidated over the bus). */
  guardrails: SavedGuardrails;
  /** What guardrail checks use to call out (webhooks, key sets): vetted against private addresses. */
  guardrailOutbound: Pick<CheckContext, 'fetch' | 'vetUrl'>;
  /** MCP servers as gw reaches them: the outbound guard, credentials, the SDK client. */
  mcpUpstreams: McpUpstreams;
  /** A client's answers and cancellations, to the instance where the request they concern waits. */
  mcpClientRelay: McpClientRelay;
  /** MCP servers as the gateway finds them: from memory, emptied on the `mcp_servers` topic. */
  mcpDirectory: McpDirectory;
  /** Prometheus metrics (GET /metrics); undefined when metrics are off. */
  metrics: GatewayMetrics | undefined;
  /** OpenTelemetry traces; undefined unless an OTLP endpoint is configured. */
  tracing: Tracing | undefined;
  /** Executes assistant runs (leases, turns, expiry, recovery of runs whose instance died). */
  assistantRuns: RunExecutor;
  /** Set once a stop began (server/shutdown.ts): /ready then answers 503 while requests are still served. */
  lifecycle: { stopping: boolean };
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
}
