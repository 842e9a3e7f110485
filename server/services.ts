import type { Knex } from 'knex';
import type { RequestLogSink } from '../gateway/request-log.js';
import type { SavedResources } from '../gateway/saved-resources.js';
import type { createClient } from 'redis';
import type { Store } from '../store/store.js';
import type { SecretBox } from '../store/secret-box.js';
import type { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import type { Config } from './config.js';
import type { InvalidationBus } from './invalidation.js';
import type { Logger } from './logger.js';

export type RedisClient = ReturnType<typeof createClient>;

/** Everything a handler or stage may use, built once per process by createServices. */
export interface Services {
  config: Readonly<Config>;
  db: Knex;
  store: Store;
  redis: RedisClient | undefined;
  bus: InvalidationBus;
  secrets: SecretBox;
  authenticator: ApiKeyAuthenticator;
  logger: Logger;
  /** Where every gateway request's log entry goes (batched writer). */
  requestLogs: RequestLogSink;
  /** Saved providers, configs and organisation settings, as the gateway reads them. */
  savedResources: SavedResources;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
}
