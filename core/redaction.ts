/**
 * The one masking step between request data and anything that keeps or shows it: request log
 * rows (and so exports), audit entries, error messages and standard output. A request's secrets
 * are read from its headers (credential headers, headers the request or the operator named
 * sensitive, secret fields of an inline x-gw-config at any depth); their values are then masked
 * wherever they appear, including free text such as an upstream error that echoes a key.
 */
import { boundedMemo } from './bounded-memo.js';
import { sha256Hex } from './sha256.js';

export const REDACTED = '[redacted]';

/** Prefix of a header value replaced by its hash; a hashed value is never hashed again. */
const HASHED = 'sha256:';

/** Header names that carry credentials wherever they appear (provider headers and forwarded ones included). */
const CREDENTIAL_HEADER = /authorization|api-?key|secret|token|password|passphrase|cookie|credential|signature/i;

/** JSON field names whose values are secrets (configs, integration bodies, audit payloads). */
const SECRET_FIELD = /^(key|secret|password|passphrase|token|api_?key|authorization|private_key|credentials?)$|_(secret|password|token|key)$|secret|access_key/i;

/** Field names that match SECRET_FIELD's shape but name a reference, not a secret. */
const NOT_SECRET_FIELD = new Set(['virtual_key', 'cache_key', 'idempotency_key']);

/** Header maps sent to someone's endpoint (a guardrail webhook's `headers`, `custom_headers`): any value may be a credential. */
const HEADER_MAP_FIELD = /^(headers|custom_headers)$/;

/** Shorter values are not searched for in free text: they would mask ordinary words and numbers. */
const MIN_SCRUBBED_LENGTH = 8;

/** Header tokens as RFC 9110 allows them: what a list of header names is split into, whatever its form. */
const NOT_TOKEN = /[^A-Za-z0-9!#$%&'*+.^_`|~-]+/;

export function hashSecret(value: string): string {
  return value.startsWith(HASHED) ? value : HASHED + sha256Hex(value);
}

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !NOT_SECRET_FIELD.has(name.toLowerCase());
}

/** A header name as masking reads it: lower-case, and whether CREDENTIAL_HEADER matches it. */
interface HeaderName {
  lower: string;
  credential: boolean;
}

/** Header names already read (names only, never values): a logged request reads each of its headers'. */
const headerName = boundedMemo((name): HeaderName => {
  const lower = name.toLowerCase();
  return { lower, credential: CREDENTIAL_HEADER.test(lower) };
}, 1_000);

/**
 * Every name a header-name list holds, leniently: a JSON array and a comma-separated list alike,
 * and never an error. The gateway validates the lists strictly (gateway-headers.ts); masking must
 * still work on a request that failed that check.
 */
function namesIn(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(NOT_TOKEN)
    .filter(Boolean)
    .map((name) => name.toLowerCase());
}

type HeaderValue = string | string[] | number | undefined;

function text(value: HeaderValue): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Secret fields at any depth: redacted; their values are also collected into `found` when given. */
export function redactFields(value: unknown, found?: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => redactFields(item, found));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (isSecretField(name) || (HEADER_MAP_FIELD.test(name) && inner !== null && typeof inner === 'object')) {
      collectStrings(inner, found);
      out[name] = isSecretField(name) ? REDACTED : Object.fromEntries(Object.keys(inner as object).map((key) => [key, REDACTED]));
    } else {
      out[name] = redactFields(inner, found);
    }
  }
  return out;
}

function collectStrings(value: unknown, found: Set<string> | undefined): void {
  if (!found) return;
  if (typeof value === 'string') found.add(value);
  else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) collectStrings(inner, found);
}

/** What JSON.stringify escapes in a string (a lone surrogate among them): a value with none of these is its own JSON form. */
// eslint-disable-next-line no-control-regex -- control characters are among what JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The values worth searching for, longest first so that a value containing another is masked
 * whole; equal lengths keep their order (as a stable sort would). A request has a handful, each
 * put in its place as it comes: cheaper than filter and sort with a compare function.
 */
function longestFirst(found: Set<string>): string[] {
  const values: string[] = [];
  for (const value of found) {
    if (value.length < MIN_SCRUBBED_LENGTH || value.startsWith(HASHED)) continue;
    let at = values.length;
    while (at > 0 && values[at - 1]!.length < value.length) at--;
    values.splice(at, 0, value);
  }
  return values;
}

/** The secrets one request carries, and the masking of anything derived from that request. */
export class RequestSecrets {
  private readonly values: string[];
  /** Each value's JSON-escaped form where it differs (a quote or backslash in a key), worked out once. */
  private readonly escapedValues: Array<string | undefined>;
  private readonly maskedHeaders: Record<string, string>;

  /**
   * @param headers the request's headers, as received
   * @param maskedNames header names the operator masks organisation-wide (lower-case)
   */
  constructor(headers: Readonly<Record<string, HeaderValue>>, maskedNames: Iterable<string> = []) {
    // Every logged request builds one of these: the operator's set is used as it is unless the request names more.
    const named = namesIn(text(headers['x-gw-sensitive-headers']));
    const sensitive: ReadonlySet<string> = named.length === 0 && maskedNames instanceof Set ? maskedNames : new Set([...maskedNames, ...named]);
    const found = new Set<string>();
    this.maskedHeaders = {};
    for (const name of Object.keys(headers)) {
      const value = text(headers[name]);
      if (value === undefined) continue;
      const { lower, credential } = headerName(name);
      if (credential || sensitive.has(lower)) {
        found.add(value);
        const bearer = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1];
        if (bearer) found.add(bearer);
        this.maskedHeaders[name] = hashSecret(value);
      } else if (lower === 'x-gw-config') {
        this.maskedHeaders[name] = redactedConfig(value, found);
      } else {
        this.maskedHeaders[name] = value;
      }
    }
    this.values = longestFirst(found);
    this.escapedValues = this.values.map((value) => {
      if (!JSON_ESCAPED.test(value)) return undefined;
      const escaped = JSON.stringify(value).slice(1, -1);
      return escaped === value ? undefined : escaped;
    });
  }

  /** The headers with credentials and sensitive values hashed, and an inline config's secrets redacted. */
  headers(): Record<string, string> {
    return this.maskedHeaders;
  }

  get empty(): boolean {
    return this.values.length === 0;
  }

  /**
   * Free text with every secret value of the request replaced (an echoed key in an upstream
   * error, say). JSON text too: a value is also found in its JSON-escaped form.
   */
  text(value: string): string {
    let out = value;
    for (let i = 0; i < this.values.length; i++) {
      const secret = this.values[i]!;
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      const escaped = this.escapedValues[i];
      if (escaped !== undefined && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
    }
    return out;
  }

  /** Any JSON value with the request's secret values scrubbed from every string in it. */
  strings(value: unknown): unknown {
    if (this.empty) return value;
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.strings(item));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, this.strings(inner)]));
  }

  /** A request payload as kept for audit: secret fields redacted, and the request's secret values scrubbed. */
  payload(value: unknown): unknown {
    return this.strings(redactFields(value));
  }
}

/** An inline config header, as logged: its secret fields redacted at any depth (a config id or slug is kept). */
function redactedConfig(value: string, found: Set<string>): string {
  if (!value.trimStart().startsWith('{')) return value;
  try {
    return JSON.stringify(redactFields(JSON.parse(value), found));
  } catch {
    // Not JSON, so no field can be told from another: keep none of it.
    found.add(value);
    return hashSecret(value);
  }
}
