import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ConfigError, loadConfig } from '../core/config.js';
import { createMetricsServer } from './metrics-server.js';
import { createServices } from './services-factory.js';
import { exitOnUncaughtErrors } from './fatal-errors.js';
import { shutdown } from './shutdown.js';
import { InFlightRequests } from '../core/in-flight.js';
import { createLogger } from '../core/logger.js';
import { runPrimary } from './cluster/primary.js';
import { PrimaryLink, answeredByWorker } from './cluster/worker-link.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`gw: configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config, createLogger(config.logLevel));
  const services = await createServices(config, { primary: cluster.isWorker ? new PrimaryLink() : undefined });
  const { logger } = services;
  // The listener, once there is one: a fault before it exists has nothing to stop accepting.
  const listening: { server?: Server } = {};
  exitOnUncaughtErrors(logger, async () => {
    listening.server?.close();
    await services.requestLogs.flush();
  });
  // A data plane's organisation, keys and the rest come from its control plane: it makes none of its own.
  const boot = config.controlPlane ? {} : await bootstrap(services);
  if ('generatedAdminKey' in boot && boot.generatedAdminKey) {
    // Printed once, on first start only: the secret is not stored anywhere.
    process.stdout.write(
      `\n  gw admin API key (shown once, store it now): ${boot.generatedAdminKey}\n` +
        `  Set GW_ADMIN_API_KEY to choose your own on first start.\n\n`,
    );
  }
  const app = await createApp(services);
  const inFlight = new InFlightRequests();
  const server = (listening.server = createServer({ keepAliveTimeout: 65_000 }, inFlight.wrap(cluster.isWorker ? answeredByWorker(app.listener) : app.listener)));
  server.on('upgrade', app.sockets.upgrade);
  server.listen(config.port, config.host, () => {
    logger.info({ port: config.port, host: config.host, store: config.databaseUrl ? 'postgres' : 'sqlite', redis: Boolean(config.redisUrl) }, 'gw listening');
  });

  const metricsServer = services.metrics && config.metrics.port !== undefined ? createMetricsServer(services.metrics, logger) : undefined;
  metricsServer?.listen(config.metrics.port, config.metrics.host, () => {
    logger.info({ port: config.metrics.port, host: config.metrics.host }, 'gw metrics listening');
  });

  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    // Ctrl-C (SIGINT) is a person at a terminal, not a load balancer: no grace period.
    stopping ??= shutdown({ services, server, inFlight, metricsServer, sockets: app.sockets }, signal, signal === 'SIGINT' ? Promise.resolve() : undefined).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'gw shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
  console.error('gw: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
