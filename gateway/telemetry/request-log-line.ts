/**
 * One JSON line per gateway request on standard output, through gw's pino logger: who served,
 * how it went and how long it took. Only fields that carry no secret and no body (no headers,
 * no messages, no keys), so the line is safe to ship to any log pipeline.
 */
import { lineWriter, type Logger } from '../../core/logger.js';
import type { RequestLogEntry } from '../../core/request-log.js';

export type RequestLogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export class RequestLogLine {
  private readonly line: (fields: Record<string, unknown>, msg: string) => void;

  constructor(logger: Logger, level: Exclude<RequestLogLevel, 'silent'>) {
    this.line = lineWriter(logger, level);
  }

  /** Undefined when the line is off (level silent, or below the logger's level). */
  static create(logger: Logger, level: RequestLogLevel): RequestLogLine | undefined {
    if (level === 'silent' || !logger.isLevelEnabled(level)) return undefined;
    return new RequestLogLine(logger, level);
  }

  write(entry: RequestLogEntry): void {
    this.line(
      {
        trace_id: entry.trace_id,
        log_id: entry.id,
        route: entry.endpoint,
        status: entry.status,
        provider: entry.provider,
        model: entry.model,
        latency_ms: entry.latency_ms,
        upstream_ms: entry.upstream_ms,
        first_byte_ms: entry.first_byte_ms,
        stream: entry.stream,
        prompt_tokens: entry.prompt_tokens,
        completion_tokens: entry.completion_tokens,
        cost: entry.cost,
        cost_unpriced: entry.cost_unpriced || undefined,
        cache_status: entry.cache_status,
        retry_count: entry.retry_count,
        workspace_id: entry.workspace_id,
        error: entry.error?.code,
      },
      'request',
    );
  }
}
