/**
 * The x-gw-* request headers that shape a chat call (beyond provider selection, which
 * resolve/ reads): tracing spans, metadata, timeout, cache controls, forwarded and sensitive
 * headers. The spec has checked their types; this checks what it cannot say (metadata is a JSON
 * object of strings; forwarded names are not gw's own or hop-by-hop headers).
 */
import { isSpecialMetadataKey, SPECIAL_METADATA_MAX_LENGTH } from '../../store/special-metadata.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../../core/errors.js';

export interface GatewayHeaders {
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
  metadata: Record<string, string>;
  /** x-gw-request-timeout, ms. */
  requestTimeoutMs: number | undefined;
  cacheNamespace: string | undefined;
  forceRefresh: boolean;
  /** Lower-case names from x-gw-forward-headers. */
  forwardHeaderNames: readonly string[];
}

const NO_NAMES: readonly string[] = Object.freeze([]);
const NO_METADATA: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Never forwarded: gw's own credentials and routing, and what the transport sets itself. */
const NOT_FORWARDABLE = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'cookie']);

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A header name as RFC 9110 defines a token. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * A list of header names, as the product description types it (an array of strings): a JSON
 * array, or a comma-separated list as HTTP usually writes one. Anything else is refused, naming
 * the header, rather than silently ignored.
 */
function names(raw: string | undefined, header: string): readonly string[] {
  if (raw === undefined || raw.trim() === '') return NO_NAMES;
  const refuse = () => new ValidationError(`${header} must be a JSON array of header names or a comma-separated list of them`, header, 'invalid_header_list');
  let list: unknown[];
  if (raw.trimStart().startsWith('[')) {
    try {
      list = JSON.parse(raw) as unknown[];
    } catch {
      throw refuse();
    }
    if (!Array.isArray(list)) throw refuse();
  } else {
    // HTTP lists may hold empty elements (RFC 9110 5.6.1).
    list = raw
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  }
  if (!list.every((name): name is string => typeof name === 'string' && HEADER_NAME.test(name))) throw refuse();
  return list.map((name) => name.toLowerCase());
}

function metadataOf(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw === '') return NO_METADATA;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ValidationError('x-gw-metadata must be a JSON object', 'x-gw-metadata', 'invalid_metadata');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('x-gw-metadata must be a JSON object', 'x-gw-metadata', 'invalid_metadata');
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new ValidationError(`x-gw-metadata.${key} must be a string`, 'x-gw-metadata', 'invalid_metadata');
    if (isSpecialMetadataKey(key) && (value === '' || value.length > SPECIAL_METADATA_MAX_LENGTH)) {
      throw new ValidationError(`x-gw-metadata.${key} must be 1 to ${SPECIAL_METADATA_MAX_LENGTH} characters`, 'x-gw-metadata', 'invalid_metadata');
    }
  }
  return parsed as Record<string, string>;
}

export function readGatewayHeaders(headers: IncomingHttpHeaders): GatewayHeaders {
  const timeout = single(headers, 'x-gw-request-timeout');
  const forwardHeaderNames = names(single(headers, 'x-gw-forward-headers'), 'x-gw-forward-headers');
  for (const name of forwardHeaderNames) {
    if (NOT_FORWARDABLE.has(name) || name.startsWith('x-gw-')) {
      throw new ValidationError(`x-gw-forward-headers may not name ${name}`, 'x-gw-forward-headers', 'header_not_forwardable');
    }
  }
  // Only checked here: the log writer reads the list itself when it masks (core/redaction.ts).
  names(single(headers, 'x-gw-sensitive-headers'), 'x-gw-sensitive-headers');
  return {
    spanId: single(headers, 'x-gw-span-id') ?? null,
    parentSpanId: single(headers, 'x-gw-parent-span-id') ?? null,
    spanName: single(headers, 'x-gw-span-name') ?? null,
    metadata: metadataOf(single(headers, 'x-gw-metadata')),
    requestTimeoutMs: timeout === undefined ? undefined : Number(timeout),
    cacheNamespace: single(headers, 'x-gw-cache-namespace'),
    forceRefresh: single(headers, 'x-gw-cache-force-refresh') === 'true',
    forwardHeaderNames,
  };
}

/** The named request headers, as sent, for the upstream call. */
export function forwardedHeaders(headers: IncomingHttpHeaders, wanted: readonly string[]): Record<string, string> | undefined {
  if (wanted.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const name of wanted) {
    // Config `forward_headers` are not checked by readGatewayHeaders; skip the same names here.
    if (NOT_FORWARDABLE.has(name) || name.startsWith('x-gw-')) continue;
    const value = single(headers, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
