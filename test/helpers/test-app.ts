import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../server/app.js';
import type { ResponsesSockets } from '../../server/responses-socket/responses-socket.js';
import { bootstrap, type BootstrapResult } from '../../server/bootstrap.js';
import { loadConfig } from '../../core/config.js';
import { closeServices, createServices } from '../../server/services-factory.js';
import type { Logger } from '../../core/logger.js';
import type { Services } from '../../core/services.js';
import type { Engine } from './engines.js';
import { privateDb, sharedDb } from './test-db.js';

export const ADMIN_KEY = 'gw-test-admin-key-0123456789abcdef';

export interface TestApp {
  services: Services;
  boot: BootstrapResult;
  url: string;
  /** supertest bound to this app's listening address. */
  http: ReturnType<typeof supertest>;
  adminKey: string;
  /** The Responses WebSocket door (drain it to test a shutdown). */
  sockets: ResponsesSockets;
  close(): Promise<void>;
}

export interface TestAppOptions {
  engine?: Engine;
  env?: Record<string, string>;
  now?: () => number;
  /** Share a database schema with another app (multi-instance tests): pass its services.db options. */
  sharedDb?: Awaited<ReturnType<typeof privateDb>>;
  /** Provider name -> origin of a fake upstream, for fixed-host providers (openai, azure-openai, ...). */
  upstreamOriginOverrides?: Record<string, string>;
  /** The resolver the outbound guard uses, so no test queries real DNS. */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** Where the app's standard-output log goes (silent by default). */
  logger?: Logger;
}

/**
 * One gw instance in this process, on an ephemeral loopback port: real store (SQLite or a
 * private Postgres schema), real Redis when the engine names it, responses checked against the spec.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
  const config = loadConfig({
    GW_DATA_DIR: dataDir,
    GW_ADMIN_API_KEY: ADMIN_KEY,
    GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    GW_LOG_LEVEL: 'silent',
    GW_VALIDATE_RESPONSES: 'true',
    GW_SHUTDOWN_GRACE_MS: '0',
    GW_REDIS_URL: options.engine?.redisUrl,
    GW_REDIS_PREFIX: `gwtest:${randomBytes(4).toString('hex')}:`,
    ...options.env,
  });
  const db = options.sharedDb ?? (await privateDb(options.engine?.databaseUrl));
  const services = await createServices(config, { db: db.options, now: options.now, logger: options.logger, upstreamOriginOverrides: options.upstreamOriginOverrides, resolveHost: options.resolveHost });
  let boot: BootstrapResult;
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    boot = await bootstrap(services);
    app = await createApp(services);
  } catch (error) {
    // A failed boot must not leave the database, Redis and timers open: the test process would never exit.
    await closeServices(services);
    if (!options.sharedDb) await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const server: Server = createServer(app.listener);
  server.on('upgrade', app.sockets.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    services,
    boot,
    url,
    http: supertest(url),
    adminKey: ADMIN_KEY,
    sockets: app.sockets,
    async close() {
      await app.sockets.drain(0);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServices(services);
      if (!options.sharedDb) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestCluster {
  apps: TestApp[];
  close(): Promise<void>;
}

/**
 * Several gw instances as replicas are deployed: one database, one Redis key prefix, one
 * encryption key; each with its own in-memory caches. The database is dropped on close.
 */
export async function startTestCluster(count: number, options: Omit<TestAppOptions, 'sharedDb'> = {}): Promise<TestCluster> {
  const db = await sharedDb(options.engine?.databaseUrl);
  const env = { GW_REDIS_PREFIX: `gwtest:${randomBytes(4).toString('hex')}:`, GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'), ...options.env };
  const apps: TestApp[] = [];
  const close = async () => {
    for (const app of apps) await app.close();
    await db.drop();
  };
  try {
    for (let i = 0; i < count; i++) apps.push(await startTestApp({ ...options, env, sharedDb: db }));
  } catch (error) {
    await close();
    throw error;
  }
  return { apps, close };
}
