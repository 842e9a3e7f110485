import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { rangeProblem } from './security/ip-ranges.js';

/** Every setting gw reads from the environment. This module is the only reader of process.env. */
export interface Config {
  port: number;
  /** GW_WORKERS: gw processes serving the port (node:cluster); 1 serves from this process alone. */
  workers: number;
  host: string;
  dataDir: string;
  /** Postgres URL; when absent the store is SQLite under dataDir. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel gw uses, so several deployments can share one Redis. */
  redisPrefix: string;
  /** Bootstrap admin key; generated and printed once when absent. */
  adminApiKey: string | undefined;
  /** 32-byte key for secrets at rest. */
  encryptionKey: Buffer;
  /** Default upstream timeout in ms (covers headers and body). */
  requestTimeoutMs: number;
  dbPoolSize: number;
  /** Hosts a custom host may name even though they resolve to private addresses. */
  trustedCustomHosts: readonly string[];
  /**
   * Socket peers (addresses or CIDR ranges) whose X-Forwarded-For gw believes when it takes a
   * caller's address (GW_TRUSTED_PROXIES); empty: the socket peer is the client.
   */
  trustedProxies: readonly string[];
  /**
   * Host header values (`name` or `name:port`) the MCP gateway answers besides loopback names on
   * the port a request came in on and the host of the public URL (DNS-rebinding protection).
   */
  mcpAllowedHosts: readonly string[];
  /** The most gw reads of one answer from a server someone else names (MCP servers, webhooks, custom hosts...): GW_MAX_UPSTREAM_ANSWER_BYTES. */
  maxUpstreamAnswerBytes: number;
  /** How long a value read from a secret manager is reused before it is read again (GW_SECRET_CACHE_SECONDS). */
  secretCacheTtlMs: number;
  /** Deadline for fetching an A2A agent card, headers and body (GW_AGENT_CARD_TIMEOUT_MS). */
  agentCardTimeoutMs: number;
  /**
   * GW_CONTROL_PLANE_URL and GW_DEPLOYMENT_KEY: data-plane mode, synced from that control plane
   * (heartbeats, snapshot polls and log shipping every GW_SYNC_INTERVAL_MS). Limits are counted on
   * the control plane; GW_DATA_PLANE_OFFLINE_ALLOWANCE_PERCENT (default 0: fail closed) is the share
   * of each limit this plane may admit on its own while the control plane cannot be reached.
   */
  controlPlane: Readonly<{ url: string; deploymentKey: string; syncIntervalMs: number; offlineAllowancePercent: number }> | undefined;
  /**
   * The host's federated identity, as workload-identity setups provide it: Azure's
   * AZURE_FEDERATED_TOKEN_FILE (+ AZURE_AUTHORITY_HOST, AZURE_TENANT_ID, AZURE_CLIENT_ID) for the
   * `workload` and `entraFederated` auth types, and GOOGLE_APPLICATION_CREDENTIALS (an
   * `external_account` file) for `wif`.
   */
  hostIdentity: Readonly<{
    azureFederatedTokenFile: string | undefined;
    azureAuthorityHost: string;
    azureTenantId: string | undefined;
    azureClientId: string | undefined;
    googleCredentialsFile: string | undefined;
  }>;
  /** Lower-cased header names whose values are hashed in logs for every organisation. */
  headersToMask: readonly string[];
  blockInlineConfig: boolean;
  /** When Redis is unreachable, counters let requests through (true) or refuse them (false). */
  limitsFailOpen: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Bytes the in-memory response cache may hold (used when Redis is not configured). */
  cacheMemoryMaxBytes: number;
  /** Request log writer: entries per multi-row insert, longest wait before a write, queue cap, body cap. */
  logBatchSize: number;
  logFlushIntervalMs: number;
  logQueueMax: number;
  /** Past the queue cap, entries spill to the data directory up to this many bytes before any is dropped (0: no spool). */
  logSpoolMaxBytes: number;
  /** Backlog age (ms) past which the log writer warns and /ready fails (0: never). */
  logBehindAfterMs: number;
  /**
   * A stop first fails /ready and keeps serving this long (GW_SHUTDOWN_GRACE_MS), so load balancers
   * stop sending before the listener closes.
   */
  shutdownGraceMs: number;
  /** Longest a stop then waits for requests in flight and for the log queue to be written. */
  shutdownTimeoutMs: number;
  logBodyMaxBytes: number;
  /**
   * GW_ROLLUP_METADATA_KEYS: the arbitrary metadata keys analytics keep rollups of
   * (store/rollups/metadata-keys.ts). Unset: the list stored in the database is left as it is.
   */
  rollupMetadataKeys: readonly string[] | undefined;
  /** Days request logs and feedback are kept; 0 keeps them forever. */
  logRetentionDays: number;
  /** Days stored Responses API responses are kept (OpenAI keeps them 30); 0 keeps them forever. */
  responsesRetentionDays: number;
  /**
   * GW_RESPONSES_REFUSE_HOSTED_TOOLS: a Responses call offering a hosted tool (web_search, file_search, ...)
   * is refused with 400; by default the tool is left out of the upstream call and the omission reported.
   */
  responsesRefuseHostedTools: boolean;
  /**
   * GW_RESPONSES_MAX_TOOL_ROUNDS: how many times one Responses call may run hosted tools gw runs
   * itself (file_search, mcp) and ask the model again; the last round offers them no more.
   */
  responsesMaxToolRounds: number;
  /** GW_RESPONSES_WS_IDLE_MS: a Responses WebSocket with no response running and no message for this long is closed. */
  responsesWsIdleMs: number;
  /** GW_RESPONSES_WS_MAX_MESSAGE_BYTES: the largest message a Responses WebSocket client may send. */
  responsesWsMaxMessageBytes: number;
  /** Tests only: validate every response against the spec and fail loudly. */
  validateResponses: boolean;
  /** Where users and identity providers reach gw (redirect URLs, the OAuth issuer); https makes session cookies Secure. */
  publicUrl: string;
  /** JWT authentication; undefined when JWT_JWKS_URL is not set (then no token is treated as a JWT). */
  jwt: JwtConfig | undefined;
  /** Console sessions (SSO sign-in). */
  sessionTtlMs: number;
  /** OAuth authorization server lifetimes. */
  oauth: { accessTokenTtlMs: number; refreshTokenTtlMs: number; codeTtlMs: number };
  /** Level of the one-line-per-request log on standard output; silent turns it off. */
  requestLogLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** GET /metrics: a separate listener (loopback by default) and/or a bearer token on the main port. Off when neither is set. */
  metrics: { port: number | undefined; host: string; token: string | undefined };
  /** OpenTelemetry traces: off unless an OTLP endpoint is set. */
  tracing: { endpoint: string | undefined; headers: Record<string, string>; serviceName: string; sampleRatio: number; captureBodies: boolean };
  /**
   * Background jobs (docs/workers.md): the engine (auto = pg-boss on Postgres, else the store's jobs
   * table), how long a running job's lease lasts without a heartbeat (batch lines and log exports
   * use it too), how often idle workers poll.
   */
  jobs: { engine: 'auto' | 'store' | 'pg-boss'; leaseMs: number; pollMs: number };
  /** Largest file `/v1/files` stores (docs/files-and-batches.md). */
  filesMaxBytes: number;
  /** Lines of one batch sent at once by one worker (docs/files-and-batches.md). */
  batchConcurrency: number;
  /** Native batches: the first and longest wait between polls of the provider's batch (docs/files-and-batches.md). */
  batchPollMs: { min: number; max: number };
  /** Assistant runs (docs/assistants.md): how long an instance holds a run in a turn before another may decide it died (GW_RUN_LEASE_SECONDS, else the jobs lease). */
  runLeaseMs: number;
  /** Code interpreter in runs (docs/assistants.md): a call's time and memory, its printed output, and calls per run. */
  codeInterpreter: { timeoutMs: number; memoryMb: number; maxOutputBytes: number; maxCallsPerRun: number };
}

/** JWT_* settings: where the keys are, what a token must say, and which claims carry what. */
export interface JwtConfig {
  jwksUrls: readonly string[];
  issuer: string | undefined;
  audience: string | undefined;
  algorithms: readonly string[];
  clockToleranceSeconds: number;
  /** How long fetched key sets are used before they are fetched again. */
  jwksCacheMs: number;
  /** Shortest time between two fetches caused by an unknown `kid`. */
  jwksCooldownMs: number;
  claims: {
    user: string;
    email: string;
    organisation: string;
    workspace: string;
    role: string;
    workspaceRole: string;
    scopes: string;
  };
}

const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

function jwtConfig(env: Env): JwtConfig | undefined {
  const jwksUrls = (env.JWT_JWKS_URL ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (jwksUrls.length === 0) return undefined;
  for (const [index, raw] of jwksUrls.entries()) url({ [`JWT_JWKS_URL[${index}]`]: raw }, `JWT_JWKS_URL[${index}]`, ['https:', 'http:']);
  const algorithms = (env.JWT_ALGORITHMS || 'RS256,ES256,PS256,EdDSA').split(',').map((item) => item.trim()).filter(Boolean);
  for (const algorithm of algorithms) {
    // HMAC algorithms need a shared secret, not a key set; 'none' is never a signature.
    if (!JWT_ALGORITHMS.includes(algorithm)) throw new ConfigError(`JWT_ALGORITHMS: ${algorithm} is not one of ${JWT_ALGORITHMS.join(', ')}`);
  }
  const claim = (name: string, fallback: string) => env[name] || fallback;
  return Object.freeze({
    jwksUrls: Object.freeze(jwksUrls),
    issuer: env.JWT_ISSUER || undefined,
    audience: env.JWT_AUDIENCE || undefined,
    algorithms: Object.freeze(algorithms),
    clockToleranceSeconds: integer(env, 'JWT_CLOCK_TOLERANCE_SECONDS', 5, 0, 300),
    jwksCacheMs: integer(env, 'JWT_JWKS_CACHE_SECONDS', 600, 1, 86_400) * 1000,
    jwksCooldownMs: integer(env, 'JWT_JWKS_COOLDOWN_SECONDS', 30, 0, 3600) * 1000,
    claims: Object.freeze({
      user: claim('JWT_CLAIM_USER', 'sub'),
      email: claim('JWT_CLAIM_EMAIL', 'email'),
      organisation: claim('JWT_CLAIM_ORGANISATION', 'organisation_id'),
      workspace: claim('JWT_CLAIM_WORKSPACE', 'workspace_id'),
      role: claim('JWT_CLAIM_ROLE', 'role'),
      workspaceRole: claim('JWT_CLAIM_WORKSPACE_ROLE', 'workspace_role'),
      scopes: claim('JWT_CLAIM_SCOPES', 'scope'),
    }),
  });
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * GW_WORKERS: a number, or `auto` for the cores this process may use (os.availableParallelism, and
 * the cgroup's CPU quota when it is lower). Unset: 1, until a quiet bench shows the gain (docs/operations.md).
 */
function workersOf(env: Env): number {
  const raw = env.GW_WORKERS || '1';
  if (raw === 'auto') return availableCores();
  return integer({ GW_WORKERS: raw }, 'GW_WORKERS', 1, 1, 1024);
}

/**
 * The cores this process may use: the machine's (os.availableParallelism, which reads no cgroup),
 * capped by a CPU quota (a container's `--cpus`): cgroup v2's `cpu.max`, else cgroup v1's
 * `cpu/cpu.cfs_quota_us` over `cpu.cfs_period_us` (-1: none). A fraction rounds down, to at least 1.
 */
export function availableCores(cgroupRoot = '/sys/fs/cgroup'): number {
  const cores = availableParallelism();
  const read = (file: string) => {
    try {
      return readFileSync(path.join(cgroupRoot, file), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const v2 = read('cpu.max')?.split(/\s+/);
  const [max, period] = v2 ? [Number(v2[0]), Number(v2[1])] : [Number(read('cpu/cpu.cfs_quota_us')), Number(read('cpu/cpu.cfs_period_us'))];
  if (!(max > 0) || !(period > 0)) return cores; // "max" or -1: no quota
  return Math.max(1, Math.min(cores, Math.floor(max / period)));
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function logLevel(env: Env, name: string, fallback: Config['logLevel']): Config['logLevel'] {
  const raw = (env[name] || fallback) as Config['logLevel'];
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError(`${name} must be debug, info, warn, error or silent, got "${raw}"`);
  return raw;
}

function ratio(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new ConfigError(`${name} must be a number from 0 to 1, got "${raw}"`);
  return value;
}

/** OTEL_EXPORTER_OTLP_HEADERS: `name=value,name2=value2`, values URL-encoded (the OpenTelemetry convention). */
function otlpHeaders(env: Env, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (env[name] ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/traces. */
function tracesEndpoint(env: Env): string | undefined {
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  if (traces) return traces;
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  return base ? base.replace(/\/+$/, '') + '/v1/traces' : undefined;
}

/** Metadata keys as written (case kept), none of the special ones (they have rollups of their own). */
function rollupMetadataKeys(env: Env): readonly string[] | undefined {
  const raw = env.GW_ROLLUP_METADATA_KEYS;
  if (raw === undefined) return undefined;
  const keys = [...new Set(raw.split(',').map((key) => key.trim()).filter(Boolean))];
  for (const key of keys) {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(key) || key.startsWith('_')) throw new ConfigError(`GW_ROLLUP_METADATA_KEYS: "${key}" is not a metadata key gw can roll up (letters, digits, _ . -; not starting with _)`);
  }
  return Object.freeze(keys);
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}

function addressRanges(env: Env, name: string): string[] {
  const ranges = list(env, name);
  for (const range of ranges) {
    const problem = rangeProblem(range);
    if (problem) throw new ConfigError(`${name}: ${problem}`);
  }
  return ranges;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

/** Reads GW_ENCRYPTION_KEY (64 hex chars or base64 of 32 bytes), or a key file in the data dir it creates once. */
function encryptionKey(env: Env, dataDir: string): Buffer {
  const raw = env.GW_ENCRYPTION_KEY;
  if (raw) {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('GW_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
    return key;
  }
  const file = path.join(dataDir, 'encryption.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}

const JOB_ENGINES = ['auto', 'store', 'pg-boss'] as const;

function jobEngine(env: Env): Config['jobs']['engine'] {
  const raw = (env.GW_JOBS_ENGINE || 'auto') as Config['jobs']['engine'];
  if (!JOB_ENGINES.includes(raw)) throw new ConfigError(`GW_JOBS_ENGINE must be one of ${JOB_ENGINES.join(', ')}, got "${raw}"`);
  if (raw === 'pg-boss' && !env.GW_DATABASE_URL) throw new ConfigError('GW_JOBS_ENGINE=pg-boss needs GW_DATABASE_URL');
  return raw;
}

function controlPlane(env: Env): Config['controlPlane'] {
  const cp = url(env, 'GW_CONTROL_PLANE_URL', ['https:', 'http:']);
  const key = env.GW_DEPLOYMENT_KEY || undefined;
  if (cp === undefined && key === undefined) return undefined;
  if (cp === undefined || key === undefined) throw new ConfigError('GW_CONTROL_PLANE_URL and GW_DEPLOYMENT_KEY go together: set both or neither');
  return Object.freeze({
    url: cp,
    deploymentKey: key,
    syncIntervalMs: integer(env, 'GW_SYNC_INTERVAL_MS', 5000, 100, 3_600_000),
    offlineAllowancePercent: integer(env, 'GW_DATA_PLANE_OFFLINE_ALLOWANCE_PERCENT', 0, 0, 100),
  });
}

function metricsToken(env: Env): string | undefined {
  const token = env.GW_METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('GW_METRICS_TOKEN must be at least 16 characters');
  return token;
}

/** Options of the `gw` command (server/cli.ts) that stand for a setting, by option name. */
export const COMMAND_LINE_SETTINGS = { port: 'GW_PORT', host: 'GW_HOST', 'data-dir': 'GW_DATA_DIR' } as const;

/** Puts the options given to `gw` into the environment loadConfig reads: an option wins over the variable. */
export function applyCommandLineSettings(options: Partial<Record<keyof typeof COMMAND_LINE_SETTINGS, string>>): void {
  for (const [option, variable] of Object.entries(COMMAND_LINE_SETTINGS)) {
    const value = options[option as keyof typeof COMMAND_LINE_SETTINGS];
    if (value !== undefined) process.env[variable] = value;
  }
}

/**
 * How long background work (a job, a batch line, a run's turn, a log export) stays held without a
 * heartbeat from its instance; renewed every third of it, so a dead instance's work moves on
 * within about this long.
 */
const JOBS_LEASE_SECONDS = 15;

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const dataDir = path.resolve(env.GW_DATA_DIR || './data');
  const adminApiKey = env.GW_ADMIN_API_KEY || undefined;
  if (adminApiKey !== undefined && adminApiKey.length < 20) {
    throw new ConfigError('GW_ADMIN_API_KEY must be at least 20 characters');
  }
  const jobsLeaseSeconds = integer(env, 'GW_JOBS_LEASE_SECONDS', JOBS_LEASE_SECONDS, 1, 86_400);
  return Object.freeze({
    port: integer(env, 'GW_PORT', 8787, 0, 65535),
    workers: workersOf(env),
    host: env.GW_HOST || '0.0.0.0',
    dataDir,
    databaseUrl: url(env, 'GW_DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'GW_REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: env.GW_REDIS_PREFIX || 'gw:',
    adminApiKey,
    encryptionKey: encryptionKey(env, dataDir),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT', 300_000, 1, 3_600_000),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 12, 1, 1000),
    trustedCustomHosts: Object.freeze(list(env, 'TRUSTED_CUSTOM_HOSTS')),
    trustedProxies: Object.freeze(addressRanges(env, 'GW_TRUSTED_PROXIES')),
    mcpAllowedHosts: Object.freeze(list(env, 'GW_MCP_ALLOWED_HOSTS')),
    maxUpstreamAnswerBytes: integer(env, 'GW_MAX_UPSTREAM_ANSWER_BYTES', 32 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    secretCacheTtlMs: integer(env, 'GW_SECRET_CACHE_SECONDS', 60, 0, 86_400) * 1000,
    agentCardTimeoutMs: integer(env, 'GW_AGENT_CARD_TIMEOUT_MS', 10_000, 1, 300_000),
    controlPlane: controlPlane(env),
    hostIdentity: Object.freeze({
      azureFederatedTokenFile: env.AZURE_FEDERATED_TOKEN_FILE || undefined,
      azureAuthorityHost: (url(env, 'AZURE_AUTHORITY_HOST', ['https:', 'http:']) ?? 'https://login.microsoftonline.com').replace(/\/+$/, ''),
      azureTenantId: env.AZURE_TENANT_ID || undefined,
      azureClientId: env.AZURE_CLIENT_ID || undefined,
      googleCredentialsFile: env.GOOGLE_APPLICATION_CREDENTIALS || undefined,
    }),
    headersToMask: Object.freeze(list(env, 'ORGANISATION_HEADERS_TO_MASK')),
    blockInlineConfig: boolean(env, 'BLOCK_INLINE_CONFIG', false),
    limitsFailOpen: boolean(env, 'GW_LIMITS_FAIL_OPEN', false),
    logLevel: logLevel(env, 'GW_LOG_LEVEL', 'info'),
    cacheMemoryMaxBytes: integer(env, 'GW_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    logBatchSize: integer(env, 'GW_LOG_BATCH_SIZE', 500, 1, 10_000),
    logFlushIntervalMs: integer(env, 'GW_LOG_FLUSH_INTERVAL_MS', 1000, 10, 60_000),
    logQueueMax: integer(env, 'GW_LOG_QUEUE_MAX', 50_000, 1, 10_000_000),
    logSpoolMaxBytes: integer(env, 'GW_LOG_SPOOL_MAX_BYTES', 1024 ** 3, 0, 1024 ** 4),
    logBehindAfterMs: integer(env, 'GW_LOG_BEHIND_SECONDS', 30, 0, 86_400) * 1000,
    shutdownGraceMs: integer(env, 'GW_SHUTDOWN_GRACE_MS', 5000, 0, 600_000),
    shutdownTimeoutMs: integer(env, 'GW_SHUTDOWN_TIMEOUT_MS', 30_000, 100, 3_600_000),
    logBodyMaxBytes: integer(env, 'GW_LOG_BODY_MAX_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
    rollupMetadataKeys: rollupMetadataKeys(env),
    logRetentionDays: integer(env, 'GW_LOG_RETENTION_DAYS', 30, 0, 36_500),
    responsesRetentionDays: integer(env, 'GW_RESPONSES_RETENTION_DAYS', 30, 0, 36_500),
    responsesRefuseHostedTools: boolean(env, 'GW_RESPONSES_REFUSE_HOSTED_TOOLS', false),
    responsesMaxToolRounds: integer(env, 'GW_RESPONSES_MAX_TOOL_ROUNDS', 5, 1, 50),
    responsesWsIdleMs: integer(env, 'GW_RESPONSES_WS_IDLE_MS', 300_000, 1000, 86_400_000),
    responsesWsMaxMessageBytes: integer(env, 'GW_RESPONSES_WS_MAX_MESSAGE_BYTES', 32 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    validateResponses: boolean(env, 'GW_VALIDATE_RESPONSES', false),
    publicUrl: (url(env, 'GW_PUBLIC_URL', ['https:', 'http:']) ?? `http://localhost:${integer(env, 'GW_PORT', 8787, 0, 65535)}`).replace(/\/+$/, ''),
    jwt: jwtConfig(env),
    sessionTtlMs: integer(env, 'GW_SESSION_TTL_HOURS', 12, 1, 24 * 90) * 3_600_000,
    oauth: Object.freeze({
      accessTokenTtlMs: integer(env, 'GW_OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400) * 1000,
      refreshTokenTtlMs: integer(env, 'GW_OAUTH_REFRESH_TOKEN_TTL_DAYS', 30, 1, 365) * 86_400_000,
      codeTtlMs: 60_000,
    }),
    requestLogLevel: logLevel(env, 'GW_REQUEST_LOG_LEVEL', 'info'),
    metrics: Object.freeze({
      port: env.GW_METRICS_PORT ? integer(env, 'GW_METRICS_PORT', 0, 1, 65535) : undefined,
      host: env.GW_METRICS_HOST || '127.0.0.1',
      token: metricsToken(env),
    }),
    tracing: Object.freeze({
      endpoint: tracesEndpoint(env),
      headers: otlpHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
      serviceName: env.OTEL_SERVICE_NAME || 'gw',
      sampleRatio: ratio(env, 'GW_TRACES_SAMPLE_RATIO', 1),
      captureBodies: boolean(env, 'GW_TRACES_CAPTURE_BODIES', false),
    }),
    batchConcurrency: integer(env, 'GW_BATCH_CONCURRENCY', 8, 1, 256),
    batchPollMs: Object.freeze({ min: integer(env, 'GW_BATCH_POLL_MS', 5000, 1, 3_600_000), max: integer(env, 'GW_BATCH_POLL_MAX_MS', 300_000, 1, 86_400_000) }),
    runLeaseMs: integer(env, 'GW_RUN_LEASE_SECONDS', Math.min(jobsLeaseSeconds, 3600), 1, 3600) * 1000,
    codeInterpreter: Object.freeze({
      timeoutMs: integer(env, 'GW_CODE_INTERPRETER_TIMEOUT_SECONDS', 30, 1, 600) * 1000,
      memoryMb: integer(env, 'GW_CODE_INTERPRETER_MEMORY_MB', 512, 64, 4096),
      maxOutputBytes: integer(env, 'GW_CODE_INTERPRETER_MAX_OUTPUT_BYTES', 20_000, 100, 1_000_000),
      maxCallsPerRun: integer(env, 'GW_CODE_INTERPRETER_MAX_CALLS', 10, 1, 100),
    }),
    filesMaxBytes: integer(env, 'GW_FILES_MAX_BYTES', 512 * 1024 * 1024, 1, 2 ** 40),
    jobs: Object.freeze({
      engine: jobEngine(env),
      leaseMs: jobsLeaseSeconds * 1000,
      pollMs: integer(env, 'GW_JOBS_POLL_MS', 1000, 10, 60_000),
    }),
  });
}
