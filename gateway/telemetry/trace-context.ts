/**
 * W3C Trace Context (`traceparent`, version 00) and how it maps to gw's own trace headers:
 * an incoming traceparent gives the trace id (x-gw-trace-id, unless the caller sent one) and the
 * parent span id (x-gw-parent-span-id, unless sent); a gw trace id that is a UUID or 32 hex digits
 * is the OpenTelemetry trace id as it is, so both name the same trace. A caller that speaks only
 * gw's headers (x-gw-trace-id as such an id plus x-gw-parent-span-id) is a remote parent too.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface RemoteParent {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits: the caller's span, our request span's parent. */
  spanId: string;
  sampled: boolean;
  /** The caller's tracestate, passed on unchanged. */
  traceState: string | undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const HEX_TRACE_ID = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const HEX_SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * The caller's span context: from a valid traceparent (all-zero ids are invalid by the spec), else
 * from gw's own trace headers when they carry W3C-shaped ids. A caller naming its span this way
 * asks for the link, so the trace is sampled.
 */
export function remoteParentOf(headers: IncomingHttpHeaders): RemoteParent | undefined {
  const raw = single(headers, 'traceparent');
  if (raw === undefined) return gwHeadersParent(headers);
  const match = TRACEPARENT.exec(raw.trim().toLowerCase());
  if (!match || match[1] === ZERO_TRACE || match[2] === ZERO_SPAN) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, sampled: (parseInt(match[3]!, 16) & 1) === 1, traceState: single(headers, 'tracestate') };
}

function gwHeadersParent(headers: IncomingHttpHeaders): RemoteParent | undefined {
  const gwTraceId = single(headers, 'x-gw-trace-id');
  const spanId = single(headers, 'x-gw-parent-span-id')?.trim().toLowerCase();
  if (gwTraceId === undefined || spanId === undefined || !HEX_SPAN_ID.test(spanId) || spanId === ZERO_SPAN) return undefined;
  const traceId = otelTraceIdOf(gwTraceId.trim());
  return traceId === undefined ? undefined : { traceId, spanId, sampled: true, traceState: undefined };
}

/** The OpenTelemetry trace id a gw trace id stands for, when it is one (a UUID or 32 hex digits). */
export function otelTraceIdOf(gwTraceId: string): string | undefined {
  const lower = gwTraceId.toLowerCase();
  const hex = UUID.test(lower) ? lower.replaceAll('-', '') : lower;
  return HEX_TRACE_ID.test(hex) && hex !== ZERO_TRACE ? hex : undefined;
}

export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}
