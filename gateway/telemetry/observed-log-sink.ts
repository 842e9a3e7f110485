/**
 * The request log sink as the gateway sees it: every entry also feeds the metrics and the
 * request log line, so anything that logs a gateway request (each endpoint, refusals included)
 * is measured the same way. With both off, `record` is the writer's own.
 */
import type { RequestLogEntry, RequestLogSink } from '../../core/request-log.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { RequestLogLine } from './request-log-line.js';

export function observedLogSink(sink: RequestLogSink, metrics: GatewayMetrics | undefined, line: RequestLogLine | undefined): RequestLogSink {
  if (!metrics && !line) return sink;
  return {
    record(entry: RequestLogEntry): void {
      sink.record(entry);
      try {
        metrics?.observe(entry);
        line?.write(entry);
      } catch {
        // Observing must never fail a request; the entry is already queued.
      }
    },
    flush: () => sink.flush(),
    close: (timeoutMs?: number) => sink.close(timeoutMs),
    behind: () => sink.behind?.() ?? false,
  };
}
