/**
 * GW_METRICS_PORT: a listener of its own that answers GET /metrics and nothing else, bound to
 * GW_METRICS_HOST (127.0.0.1 unless set), so Prometheus can scrape without a token while the
 * metrics stay off the public port.
 */
import { createServer, type Server } from 'node:http';
import type { GatewayMetrics } from '../gateway/telemetry/gateway-metrics.js';
import type { Logger } from '../core/logger.js';

export function createMetricsServer(metrics: GatewayMetrics, logger: Logger): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'metrics could not be rendered');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be rendered\n');
      },
    );
  });
}
