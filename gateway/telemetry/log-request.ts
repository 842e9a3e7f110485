/**
 * Hands a gateway request's log entry to the log sink (which also feeds metrics and the request
 * log line) and, when the request is traced, puts what the entry says on the request's span.
 * Every request path logs through here.
 */
import type { Call } from '../../core/call.js';
import type { RequestLogEntry } from '../../core/request-log.js';

export function logRequest(call: Call, entry: RequestLogEntry): void {
  call.services.requestLogs.record(entry);
  call.trace?.annotate(entry);
}
