import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InFlightRequests } from '../core/in-flight.js';
import { closeServices } from './services-factory.js';
import type { Services } from '../core/services.js';
import type { ResponsesSockets } from './responses-socket/responses-socket.js';

/** What a running gw serves with: its services, its listener (and the requests in flight there), the metrics listener. */
export interface Serving {
  services: Services;
  server: Server;
  inFlight: InFlightRequests;
  metricsServer?: Server;
  /** The Responses WebSockets: their running responses finish before they close. */
  sockets?: ResponsesSockets;
}

/**
 * The stop sequence (docs/operations.md, "Starting and stopping"): /ready fails at once while every
 * request is still served for GW_SHUTDOWN_GRACE_MS, the time a load balancer needs to notice and
 * stop sending; answers meanwhile ask clients to close their connections. Then the listener stops
 * accepting, the requests in flight finish, and the background work and the log queue are written
 * before the services close, within GW_SHUTDOWN_TIMEOUT_MS. `graceOver` ends the grace period
 * instead of the clock (tests).
 */
export async function shutdown(serving: Serving, signal: string, graceOver?: Promise<void>): Promise<void> {
  const { services, server, inFlight, metricsServer, sockets } = serving;
  const { config, logger } = services;
  services.lifecycle.stopping = true;
  inFlight.endKeepAlive();
  logger.info({ signal, grace_ms: config.shutdownGraceMs }, 'gw shutting down: /ready fails, requests are served until the grace period ends');
  await (graceOver ?? sleep(config.shutdownGraceMs));

  const deadline = Date.now() + config.shutdownTimeoutMs;
  // No new connections; requests in flight finish (and are logged) before the services close.
  server.close();
  metricsServer?.close();
  server.closeIdleConnections();
  const [cutShort] = await Promise.all([inFlight.drain(config.shutdownTimeoutMs), sockets?.drain(config.shutdownTimeoutMs)]);
  if (cutShort > 0) logger.warn({ requests: cutShort }, 'requests still in flight at the shutdown deadline');
  server.closeIdleConnections();
  // The log queue gets what is left of the deadline, and never less than a few seconds.
  await closeServices(services, { logDrainMs: Math.max(deadline - Date.now(), 5000) });
  server.closeAllConnections();
}
