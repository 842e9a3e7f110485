/** The store and counter engines a suite runs on: always SQLite and memory; Postgres and Redis when CI provides them. */
export type Engine = { name: string; databaseUrl?: string; redisUrl?: string };

export function storeEngines(): Engine[] {
  const engines: Engine[] = [{ name: 'sqlite' }];
  if (process.env.GW_TEST_DATABASE_URL) engines.push({ name: 'postgres', databaseUrl: process.env.GW_TEST_DATABASE_URL });
  return engines;
}

export function counterEngines(): Engine[] {
  const engines: Engine[] = [{ name: 'memory' }];
  if (process.env.GW_TEST_REDIS_URL) engines.push({ name: 'redis', redisUrl: process.env.GW_TEST_REDIS_URL });
  return engines;
}

/** Every combination a full-stack suite should see: SQLite+memory, and Postgres+Redis when available. */
export function fullEngines(): Engine[] {
  const engines: Engine[] = [{ name: 'sqlite+memory' }];
  if (process.env.GW_TEST_DATABASE_URL || process.env.GW_TEST_REDIS_URL) {
    engines.push({
      name: [process.env.GW_TEST_DATABASE_URL ? 'postgres' : 'sqlite', process.env.GW_TEST_REDIS_URL ? 'redis' : 'memory'].join('+'),
      databaseUrl: process.env.GW_TEST_DATABASE_URL,
      redisUrl: process.env.GW_TEST_REDIS_URL,
    });
  }
  return engines;
}

/**
 * What several instances can share, so invalidation must cross between them: a SQLite file or
 * Postgres, with Redis. Empty without GW_TEST_REDIS_URL.
 */
export function clusterEngines(): Engine[] {
  const redisUrl = process.env.GW_TEST_REDIS_URL;
  if (!redisUrl) return [];
  const engines: Engine[] = [{ name: 'sqlite-file+redis', redisUrl }];
  if (process.env.GW_TEST_DATABASE_URL) engines.push({ name: 'postgres+redis', databaseUrl: process.env.GW_TEST_DATABASE_URL, redisUrl });
  return engines;
}
