import { PromptLibrary } from '../gateway/prompts/prompt-library.js';
import path from 'node:path';
import { createClient } from 'redis';
import { MemoryCacheBackend } from '../gateway/cache/memory-cache-backend.js';
import { RedisCacheBackend } from '../gateway/cache/redis-cache-backend.js';
import { ResponseCache } from '../gateway/cache/response-cache.js';
import { SemanticStore } from '../gateway/cache/semantic/semantic-store.js';
import { BatchingLogSink } from '../gateway/logs/batching-log-sink.js';
import { BodyPolicyWriter } from '../gateway/logs/body-policy-writer.js';
import { LogSpool } from '../gateway/logs/log-spool.js';
import { LogExportRunner } from '../gateway/logs/log-export-runner.js';
import { RunExecutor } from '../gateway/assistants/run-executor.js';
import { LogRetentionJob } from '../gateway/logs/log-retention.js';
import { RollupBackfillJob } from '../gateway/logs/rollup-backfill-job.js';
import type { Knex } from 'knex';
import { AdvisoryLock, underAdvisoryLock } from '../store/advisory-lock.js';
import { createDb, sqliteFileOf, type DbOptions } from '../store/db.js';
import { ThreadedRequestLogWriter } from '../store/repositories/request-logs.js';
import { SqliteWriterThread } from '../store/sqlite-writer-thread.js';
import { migrateToLatest } from '../store/migrate.js';
import { setMetadataRollupKeys } from '../store/rollups/metadata-keys.js';
import { StoreSavedResources } from '../gateway/saved-resources-store.js';
import { createSecretManagers } from '../gateway/secrets/managers.js';
import { PooledHttp } from '../gateway/outbound/pooled-http.js';
import { AgentAuth } from '../gateway/agents/agent-auth.js';
import { AgentCardFetcher } from '../gateway/agents/agent-card-fetcher.js';
import { ProviderCredentials } from '../gateway/credentials/provider-credentials.js';
import { startDeploymentHeartbeat } from '../gateway/deployment/heartbeat.js';
import { DataPlaneSync } from '../gateway/deployment/data-plane.js';

/** Per call to a provider's token endpoint (OAuth, Entra, Google STS, AWS STS). */
const PROVIDER_TOKEN_TIMEOUT_MS = 10_000;
import { SecretValues } from '../gateway/secrets/secret-values.js';
import { guardedCheckTools } from '../gateway/guardrails/guarded-fetch.js';
import { SavedGuardrails } from '../gateway/guardrails/saved-guardrails.js';
import { LimitsEngine } from '../gateway/limits/limits-engine.js';
import { MemoryCounterStore } from '../gateway/limits/memory-counter-store.js';
import { LimitPolicies } from '../gateway/limits/policy-cache.js';
import { RedisCounterStore } from '../gateway/limits/redis-counter-store.js';
import { ControlPlaneCounters } from '../gateway/deployment/control-plane-counters.js';
import { SecretBox } from '../store/secret-box.js';
import { UpstreamClient } from '../gateway/transport/upstream-client.js';
import { Store } from '../store/store.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { Authenticators } from './auth/credentials.js';
import type { Credentials } from '../core/auth/credentials.js';
import { JwtAuthenticator } from './auth/jwt/jwt-authenticator.js';
import { MergedKeySets } from './auth/jwt/key-sets.js';
import { OAuthTokenAuthenticator } from './auth/oauth-token-authenticator.js';
import { ScimTokenAuthenticator } from './auth/scim-token-authenticator.js';
import { SessionAuthenticator } from './auth/session-authenticator.js';
import type { GuardedFetch } from '../gateway/outbound/guarded-fetch.js';
import { AgentDirectory } from '../gateway/a2a/agent-directory.js';
import { McpDirectory } from '../gateway/mcp/mcp-directory.js';
import { OutboundGuard } from '../gateway/outbound/outbound-guard.js';
import type { ResolveHost } from '../gateway/outbound/url-guard.js';
import type { Config } from '../core/config.js';
import { LocalInvalidationBus, RedisInvalidationBus, type InvalidationBus } from '../core/invalidation.js';
import { createLogger, type Logger } from '../core/logger.js';
import type { RedisClient, Services } from '../core/services.js';
import { GatewayMetrics } from '../gateway/telemetry/gateway-metrics.js';
import { observedLogSink } from '../gateway/telemetry/observed-log-sink.js';
import { RequestLogLine } from '../gateway/telemetry/request-log-line.js';
import { Tracing } from '../gateway/telemetry/tracing.js';
import { GW_VERSION } from '../core/version.js';
import { createJobQueue } from './job-engine.js';
import { FileStore } from '../gateway/files/file-store.js';
import { FilesRepository } from '../store/repositories/files.js';
import { BatchesRepository } from '../store/repositories/batches.js';
import { BATCH_JOB, BatchRunner } from '../gateway/batches/batch-runner.js';
import { Batches } from '../gateway/batches/batches.js';
import { chooseBatchMode } from '../gateway/batches/native-target.js';
import { INGEST_JOB, VectorStores } from '../gateway/vector-stores/vector-stores.js';
import { VectorStoresRepository } from '../store/repositories/vector-stores.js';
import { McpClientRelay } from '../gateway/mcp/client-relay.js';
import { McpUpstreams } from '../gateway/mcp/mcp-upstreams.js';
import type { PrimaryLink } from './cluster/worker-link.js';

export interface ServiceOptions {
  /** Overrides for tests: a private SQLite file or a Postgres schema, an injected clock. */
  db?: DbOptions;
  now?: () => number;
  logger?: Logger;
  /** Tests only: provider name -> origin of a fake upstream, for providers with a fixed host. */
  upstreamOriginOverrides?: Readonly<Record<string, string>>;
  /** Tests only: the resolver the outbound guard uses for identity and MCP URLs, so no test queries real DNS. */
  resolveHost?: ResolveHost;
  /** A worker of several (GW_WORKERS): without Redis, its counters, cache, invalidations and SQLite log writes go to the primary. */
  primary?: PrimaryLink;
}

async function connectRedis(url: string, logger: Logger): Promise<RedisClient> {
  const client = createClient({ url, socket: { reconnectStrategy: (retries: number) => Math.min(retries * 100, 2000) } });
  // Without a listener an unreachable Redis would crash the process; the limits code decides what to do instead.
  client.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis error'));
  await client.connect();
  return client;
}

/**
 * Connects the store (migrating it), Redis when configured, and builds the shared services.
 * Instances starting together on one Postgres take turns (docs/operations.md): each one's start,
 * migrations and the job queue's schema and queues included, runs under the startup lock.
 */
export async function createServices(config: Readonly<Config>, options: ServiceOptions = {}): Promise<Services> {
  const dbOptions = options.db ?? { databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.dbPoolSize };
  const db = createDb(dbOptions);
  return underAdvisoryLock(db, AdvisoryLock.startup, () => startServices(config, options, db, dbOptions));
}

async function startServices(config: Readonly<Config>, options: ServiceOptions, db: Knex, dbOptions: DbOptions): Promise<Services> {
  const logger = options.logger ?? createLogger(config.logLevel);
  await migrateToLatest(db);
  if (config.rollupMetadataKeys) await setMetadataRollupKeys(db, config.rollupMetadataKeys);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger) : undefined;
  const primary = options.primary;
  const bus: InvalidationBus = redis ? await RedisInvalidationBus.connect(redis, config.redisPrefix, logger) : (primary?.bus ?? new LocalInvalidationBus());
  // A data plane queues every request log it writes for the control plane (docs/deployments.md, "Log shipping").
  const logWrites = { outbox: config.controlPlane !== undefined };
  const store = new Store(db, logWrites);
  const secrets = new SecretBox(config.encryptionKey);
  const now = options.now ?? Date.now;
  const semanticCache = new SemanticStore(store, bus, now, logger);
  const sqliteFile = sqliteFileOf(db);
  const logWriter = new BatchingLogSink(
    new BodyPolicyWriter(
      sqliteFile ? new ThreadedRequestLogWriter(primary?.logThread() ?? new SqliteWriterThread(sqliteFile), logWrites) : store.requestLogs,
      // Writes start after `services` below exists.
      (organisationId, workspaceId) => services.savedResources.securitySettings(organisationId, workspaceId),
    ),
    {
      batchSize: config.logBatchSize,
      flushIntervalMs: config.logFlushIntervalMs,
      maxQueue: config.logQueueMax,
      headersToMask: config.headersToMask,
      maxBodyBytes: config.logBodyMaxBytes,
      spool: config.logSpoolMaxBytes > 0 ? new LogSpool(path.join(config.dataDir, 'log-spool'), config.logSpoolMaxBytes) : undefined,
      behindAfterMs: config.logBehindAfterMs,
    },
    logger,
  );
  const metrics = config.metrics.port !== undefined || config.metrics.token !== undefined ? new GatewayMetrics(logWriter, primary && (() => primary.clusterMetrics())) : undefined;
  if (metrics) primary?.shareMetrics(metrics.registry);
  const requestLogs = observedLogSink(logWriter, metrics, RequestLogLine.create(logger, config.requestLogLevel));
  const lease = config.jobs.leaseMs;
  const logExports = new LogExportRunner(store, { dir: path.join(config.dataDir, 'exports'), leaseMs: lease, renewMs: Math.max(10, Math.floor(lease / 3)), sweepMs: Math.min(15_000, lease) }, now, logger);
  await logExports.start();
  const logRetention = new LogRetentionJob(store, { retentionDays: config.logRetentionDays, responsesRetentionDays: config.responsesRetentionDays }, now, logger);
  logRetention.start();
  const rollupBackfill = new RollupBackfillJob(db, logger);
  rollupBackfill.start();
  // A data plane counts limits on its control plane, so a budget holds across every plane; several
  // workers without Redis count on their primary.
  const limitCounters = config.controlPlane
    ? new ControlPlaneCounters({ controlPlaneUrl: config.controlPlane.url, deploymentKey: config.controlPlane.deploymentKey, offlineAllowancePercent: config.controlPlane.offlineAllowancePercent, logger, now })
    : redis
      ? new RedisCounterStore(redis, config.redisPrefix)
      : (primary?.counters() ?? new MemoryCounterStore(now));
  const cacheBackend = redis ? new RedisCacheBackend(redis, config.redisPrefix) : (primary?.cache() ?? new MemoryCacheBackend(config.cacheMemoryMaxBytes, now));
  const jobs = await createJobQueue(config, db, dbOptions, logger);
  const outbound = new OutboundGuard(config.trustedCustomHosts, config.maxUpstreamAnswerBytes, options.resolveHost);
  const identityFetch = outbound.fetch('unsafe_identity_url');
  const pooledHttp = new PooledHttp(outbound);
  const services: Services = {
    config,
    db,
    store,
    redis,
    bus,
    secrets,
    credentials: createCredentials(config, store, bus, now, logger, identityFetch),
    outbound,
    identityFetch,
    agentCards: new AgentCardFetcher(
      outbound.fetch('agent_card_url_refused'),
      config.agentCardTimeoutMs,
    ),
    agents: new AgentDirectory(store, bus),
    pooledHttp,
    agentAuth: new AgentAuth(secrets, outbound.fetch('agent_token_url_refused'), now),
    logger,
    requestLogs,
    logExports,
    logRetention,
    rollupBackfill,
    jobs,
    files: new FileStore(new FilesRepository(db), config.filesMaxBytes, now),
    savedResources: new StoreSavedResources(
      store,
      secrets,
      bus,
      new SecretValues(store, secrets, bus, createSecretManagers({ trustedHosts: config.trustedCustomHosts, now, resolve: options.resolveHost, maxAnswerBytes: config.maxUpstreamAnswerBytes }), now, config.secretCacheTtlMs),
      new ProviderCredentials(
        outbound.fetch('provider_credential_refused'),
        { trustedHosts: config.trustedCustomHosts, resolve: options.resolveHost, timeoutMs: PROVIDER_TOKEN_TIMEOUT_MS },
        config.hostIdentity,
        now,
      ),
    ),
    promptLibrary: new PromptLibrary(store, bus),
    responseCache: new ResponseCache(cacheBackend, semanticCache, logger),
    semanticCache,
    upstreams: new UpstreamClient({ originOverrides: options.upstreamOriginOverrides }),
    guardrails: new SavedGuardrails(store, secrets, bus),
    guardrailOutbound: guardedCheckTools({ trustedHosts: config.trustedCustomHosts, resolve: options.resolveHost, maxAnswerBytes: config.maxUpstreamAnswerBytes }),
    limitPolicies: new LimitPolicies(store, bus),
    limitCounters,
    limits: new LimitsEngine(limitCounters, { failOpen: config.limitsFailOpen, logger, now }),
    mcpUpstreams: new McpUpstreams({
      secrets,
      fetch: outbound.fetch('unsafe_mcp_url'),
      http: pooledHttp,
      trustedHosts: config.trustedCustomHosts,
      resolve: options.resolveHost,
      now,
      timeoutMs: config.requestTimeoutMs,
    }),
    mcpClientRelay: new McpClientRelay(bus),
    mcpDirectory: new McpDirectory(store, bus),
    metrics,
    tracing: Tracing.fromConfig(config.tracing, GW_VERSION),
    // Built below: the executor runs turns through the services it belongs to.
    assistantRuns: undefined as unknown as RunExecutor,
    batches: undefined as unknown as Batches,
    vectorStores: undefined as unknown as VectorStores,
    lifecycle: { stopping: false },
    now,
  };
  services.assistantRuns = new RunExecutor(services);
  services.assistantRuns.start();
  services.batches = startBatches(services);
  services.vectorStores = startVectorStores(services);
  await jobs.start();
  await services.batches.runner.resumeAll();
  await services.vectorStores.resumeAll();
  if (config.controlPlane) {
    await startDeploymentHeartbeat(jobs, { controlPlaneUrl: config.controlPlane.url, deploymentKey: config.controlPlane.deploymentKey, version: GW_VERSION, publicUrl: config.publicUrl, logger });
    const dataPlane = new DataPlaneSync({ controlPlaneUrl: config.controlPlane.url, deploymentKey: config.controlPlane.deploymentKey, intervalMs: config.controlPlane.syncIntervalMs, db, secrets, bus, logger, now });
    await dataPlane.start(jobs);
  }
  return services;
}

/** How long one batch job takes lines before it hands over to a continuation, so batches waiting for a worker get their turn. */
const BATCH_SLICE_MS = 30_000;

/** The batches room over the worker room: its job is registered here, before the queue starts. */
function startBatches(services: Services): Batches {
  const repository = new BatchesRepository(services.db);
  const runner = new BatchRunner(services, repository, services.jobs, {
    concurrency: services.config.batchConcurrency,
    leaseMs: services.config.jobs.leaseMs,
    sliceMs: BATCH_SLICE_MS,
    poll: { minMs: services.config.batchPollMs.min, maxMs: Math.max(services.config.batchPollMs.min, services.config.batchPollMs.max) },
  });
  services.jobs.register<{ batchId: string; pollMs?: number }>(BATCH_JOB, (payload) => runner.run(payload.batchId, payload.pollMs), { concurrency: 2 });
  return new Batches(repository, services.files, services.secrets, runner, services.now, (principal, headers) => chooseBatchMode(services, principal, headers), services.logger);
}

/** The vector-stores room: file ingestion is a job of the worker room, registered before the queue starts. */
function startVectorStores(services: Services): VectorStores {
  const vectorStores = new VectorStores(services, new VectorStoresRepository(services.db), services.jobs);
  services.jobs.register<{ vectorStoreId: string; fileId: string }>(INGEST_JOB, (payload) => vectorStores.ingest(payload.vectorStoreId, payload.fileId), { concurrency: 2 });
  return vectorStores;
}

function createCredentials(
  config: Readonly<Config>,
  store: Store,
  bus: InvalidationBus,
  now: () => number,
  logger: Logger,
  fetch: GuardedFetch,
): Credentials {
  const jwt = config.jwt;
  const keySets =
    jwt && new MergedKeySets({ urls: jwt.jwksUrls, fetch, now, cacheMs: jwt.jwksCacheMs, cooldownMs: jwt.jwksCooldownMs, logger });
  return new Authenticators({
    apiKeys: new ApiKeyAuthenticator(store, bus, now),
    jwt: jwt && keySets ? new JwtAuthenticator(jwt, keySets, store, bus, now) : undefined,
    sessions: new SessionAuthenticator(store, bus, now),
    scimTokens: new ScimTokenAuthenticator(store, bus, now),
    oauthTokens: new OAuthTokenAuthenticator(store, bus, now),
  });
}

/** Closes in dependency order: log writer and jobs, bus, Redis, then the database. */
export async function closeServices(services: Services, options: { logDrainMs?: number } = {}): Promise<void> {
  // Runs first: their turns write logs and runs. Turns in flight finish for a while, the rest are handed back.
  await services.assistantRuns.close();
  // Background jobs next (they write logs), then logs while the database is still open: shutdown drains both.
  await services.jobs.close(options.logDrainMs);
  await services.requestLogs.close(options.logDrainMs);
  // A collector that is down must not stop the shutdown: the spans still buffered are lost, and said so.
  await services.tracing?.shutdown().catch((error: unknown) => services.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'traces could not be exported at shutdown'));
  await services.logExports.close();
  await services.logRetention.stop();
  await services.rollupBackfill.stop();
  await services.semanticCache.idle();
  await services.upstreams.close();
  await services.pooledHttp.close();
  await services.bus.close();
  if (services.redis?.isOpen) await services.redis.quit();
  await services.db.destroy();
}
