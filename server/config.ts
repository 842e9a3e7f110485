import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Every setting gw reads from the environment. This module is the only reader of process.env. */
export interface Config {
  port: number;
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
  /** Longest a stop waits for requests in flight and then for the log queue to be written. */
  shutdownTimeoutMs: number;
  logBodyMaxBytes: number;
  /** Days request logs and feedback are kept; 0 keeps them forever. */
  logRetentionDays: number;
  /** Tests only: validate every response against the spec and fail loudly. */
  validateResponses: boolean;
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

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
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

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const dataDir = path.resolve(env.GW_DATA_DIR || './data');
  const logLevel = (env.GW_LOG_LEVEL || 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(`GW_LOG_LEVEL must be debug, info, warn, error or silent, got "${logLevel}"`);
  }
  const adminApiKey = env.GW_ADMIN_API_KEY || undefined;
  if (adminApiKey !== undefined && adminApiKey.length < 20) {
    throw new ConfigError('GW_ADMIN_API_KEY must be at least 20 characters');
  }
  return Object.freeze({
    port: integer(env, 'GW_PORT', 8787, 0, 65535),
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
    headersToMask: Object.freeze(list(env, 'ORGANISATION_HEADERS_TO_MASK')),
    blockInlineConfig: boolean(env, 'BLOCK_INLINE_CONFIG', false),
    limitsFailOpen: boolean(env, 'GW_LIMITS_FAIL_OPEN', false),
    logLevel,
    cacheMemoryMaxBytes: integer(env, 'GW_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    logBatchSize: integer(env, 'GW_LOG_BATCH_SIZE', 100, 1, 10_000),
    logFlushIntervalMs: integer(env, 'GW_LOG_FLUSH_INTERVAL_MS', 1000, 10, 60_000),
    logQueueMax: integer(env, 'GW_LOG_QUEUE_MAX', 50_000, 1, 10_000_000),
    shutdownTimeoutMs: integer(env, 'GW_SHUTDOWN_TIMEOUT_MS', 30_000, 100, 3_600_000),
    logBodyMaxBytes: integer(env, 'GW_LOG_BODY_MAX_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
    logRetentionDays: integer(env, 'GW_LOG_RETENTION_DAYS', 30, 0, 36_500),
    validateResponses: boolean(env, 'GW_VALIDATE_RESPONSES', false),
  });
}
