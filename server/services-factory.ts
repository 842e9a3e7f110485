import { createClient } from 'redis';
import { createDb, type DbOptions } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { SecretBox } from '../store/secret-box.js';
import { Store } from '../store/store.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import type { Config } from './config.js';
import { LocalInvalidationBus, RedisInvalidationBus, type InvalidationBus } from './invalidation.js';
import { createLogger, type Logger } from './logger.js';
import type { RedisClient, Services } from './services.js';

export interface ServiceOptions {
  /** Overrides for tests: a private SQLite file or a Postgres schema, an injected clock. */
  db?: DbOptions;
  now?: () => number;
  logger?: Logger;
}

async function connectRedis(url: string, logger: Logger): Promise<RedisClient> {
  const client = createClient({ url, socket: { reconnectStrategy: (retries: number) => Math.min(retries * 100, 2000) } });
  // Without a listener an unreachable Redis would crash the process; the limits code decides what to do instead.
  client.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis error'));
  await client.connect();
  return client;
}

/** Connects the store (migrating it), Redis when configured, and builds the shared services. */
export async function createServices(config: Readonly<Config>, options: ServiceOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = createDb(options.db ?? { databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.dbPoolSize });
  await migrateToLatest(db);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger) : undefined;
  const bus: InvalidationBus = redis ? await RedisInvalidationBus.connect(redis, config.redisPrefix, logger) : new LocalInvalidationBus();
  const store = new Store(db);
  const now = options.now ?? Date.now;
  return {
    config,
    db,
    store,
    redis,
    bus,
    secrets: new SecretBox(config.encryptionKey),
    authenticator: new ApiKeyAuthenticator(store, bus, now),
    logger,
    // Placeholders until the log writer and the providers/configs store land: nothing is saved yet.
    requestLogs: { record: () => undefined, flush: async () => undefined },
    savedResources: {
      provider: async () => undefined,
      config: async () => undefined,
      organisationSettings: async () => ({}),
    },
    now,
  };
}

/** Closes in dependency order: bus, Redis, then the database. */
export async function closeServices(services: Services): Promise<void> {
  await services.bus.close();
  if (services.redis?.isOpen) await services.redis.quit();
  await services.db.destroy();
}
