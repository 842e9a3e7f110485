/**
 * Which incoming request headers a guardrail may forward to its webhook (`forwardHeaders`).
 * The webhook is a third party: it must never receive the caller's credentials, anything that
 * could reach a cloud metadata service, headers that steer routing inside gw or a proxy, or
 * hop-by-hop headers the transport owns.
 */
import { ValidationError } from '../../core/errors.js';

/** RFC 7230 `token`: the only valid spelling of a header field name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const RESTRICTED = new Map<string, string>([
  ...named('a credential header', ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'apikey', 'x-goog-api-key', 'x-amz-security-token', 'x-amz-content-sha256', 'x-amz-date', 'x-auth-token', 'x-access-token', 'x-csrf-token', 'x-xsrf-token', 'x-ms-token-aad-access-token']),
  ...named('a cloud metadata header', ['metadata', 'metadata-flavor', 'x-aws-ec2-metadata-token', 'x-aws-ec2-metadata-token-ttl-seconds', 'x-google-metadata-request', 'x-identity-header']),
  ...named('an internal routing header', ['host', 'forwarded', 'via', 'x-real-ip', 'x-client-ip', 'x-cluster-client-ip', 'true-client-ip', 'cf-connecting-ip', 'x-original-url', 'x-rewrite-url', 'x-original-host', 'x-http-method-override', 'x-http-method', 'x-method-override']),
  ...named('a hop-by-hop header', ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection', 'proxy-authenticate', 'content-length']),
]);

/** Families matched by prefix: gw's own headers carry keys, configs and routing; the others steer proxies. */
const RESTRICTED_PREFIXES: ReadonlyArray<[string, string]> = [
  ['x-gw-', "one of gw's own headers (they carry keys, configs and routing)"],
  ['x-forwarded-', 'an internal routing header'],
  ['x-envoy-', 'an internal routing header'],
];

/** Names whose words say they hold a secret, whatever the vendor prefix (x-vendor-session-token...). */
const SECRET_WORDS = /(^|-)(secret|password|passwd|token|apikey|api-key|credentials?)(-|$)/;

function named(why: string, names: string[]): Array<[string, string]> {
  return names.map((name) => [name, why]);
}

function restriction(name: string): string | undefined {
  const exact = RESTRICTED.get(name);
  if (exact) return exact;
  const prefixed = RESTRICTED_PREFIXES.find(([prefix]) => name.startsWith(prefix));
  if (prefixed) return prefixed[1];
  return SECRET_WORDS.test(name) ? 'a credential header' : undefined;
}

/**
 * Validates a `forwardHeaders` list and returns its names lower-cased, without duplicates.
 * Throws ValidationError naming the offending entry (`param[2]`).
 */
export function checkForwardHeaders(names: unknown, param: string): string[] {
  if (names === undefined || names === null) return [];
  if (!Array.isArray(names)) throw new ValidationError(`${param} must be an array of header names`, param, 'invalid_forward_headers');
  const result = new Set<string>();
  names.forEach((raw: unknown, index) => {
    const entry = `${param}[${index}]`;
    if (typeof raw !== 'string' || !HEADER_NAME.test(raw)) {
      throw new ValidationError(`${entry} must be a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`, entry, 'invalid_forward_headers');
    }
    const name = raw.toLowerCase();
    const why = restriction(name);
    if (why) throw new ValidationError(`${entry} names ${name}, ${why}, which a guardrail may not forward`, entry, 'restricted_forward_header');
    result.add(name);
  });
  return [...result];
}
