import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError, ValidationError } from '../../core/errors.js';
import { isUnsafeAddress, isUnsafeHostname } from './unsafe-addresses.js';

/** Every A/AAAA address of a name. Injectable so tests never query real DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export interface OutboundGuardOptions {
  /** Lower-case host names or IPs, optionally host:port, that may be private (config.trustedCustomHosts). */
  trustedHosts: readonly string[];
  resolve?: ResolveHost;
  /**
   * false: check the URL, IP literals and reserved names only, and leave names to a transport that
   * connects through createGuardedLookup (pinned-lookup.ts), which vets every address it connects
   * to. Saves a DNS lookup per request on hot paths. Default true.
   */
  resolveNames?: boolean;
  /** The header or field the URL came from, named in the error's `param`. */
  param?: string;
  /** Where the URL came from, in words, for the error's message (default: `param`). */
  source?: string;
  /** Error code for a refused destination. */
  code?: string;
}

export interface VettedOutboundUrl {
  url: URL;
  /**
   * The address that was checked, for the transport to connect to (see pinned-lookup.ts) so a
   * second DNS answer cannot swap in a private address. Undefined for trusted hosts, which are
   * connected to as named, and for names when resolveNames is false.
   */
  address: string | undefined;
  trusted: boolean;
}

export const resolveAllAddresses: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Checks a URL a caller gave gw to send requests to (custom host, webhook, token endpoint):
 * http(s) only, no credentials, and neither the host nor any address it resolves to may be
 * loopback, private, link-local, metadata or otherwise special, unless an operator trusts it.
 */
export async function vetOutboundUrl(raw: string, options: OutboundGuardOptions): Promise<VettedOutboundUrl> {
  const param = options.param ?? 'url';
  const source = options.source ?? param;
  const code = options.code ?? 'unsafe_outbound_url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(`${source} is not a valid URL`, param, code);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(`${source} must be an http or https URL`, param, code);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ValidationError(`${source} must not carry credentials`, param, code);
  }
  if (isTrusted(url, options.trustedHosts)) return { url, address: undefined, trusted: true };

  // WHATWG parsing already turned decimal, hex, octal and short IPv4 forms into dotted quads.
  const host = bare(url.hostname);
  const refuse = (what: string) =>
    new ValidationError(
      `${source} points to ${what}; gw does not send requests to loopback, private, link-local, metadata or reserved addresses unless the operator lists the host in TRUSTED_CUSTOM_HOSTS`,
      param,
      code,
    );
  if (isIP(host) !== 0) {
    if (isUnsafeAddress(host)) throw refuse(`the non-public address ${host}`);
    return { url, address: host, trusted: false };
  }
  if (isUnsafeHostname(host)) throw refuse(`the reserved host name ${host}`);
  if (options.resolveNames === false) return { url, address: undefined, trusted: false };

  let addresses: string[];
  try {
    addresses = await (options.resolve ?? resolveAllAddresses)(host);
  } catch (error) {
    throw unresolved(param, source, host, error);
  }
  if (addresses.length === 0) throw unresolved(param, source, host, undefined);
  // One unsafe answer is enough: the client library might pick any of them.
  const unsafe = addresses.find(isUnsafeAddress);
  if (unsafe !== undefined) throw refuse(`${host}, which resolves to the non-public address ${unsafe}`);
  return { url, address: addresses[0], trusted: false };
}

export async function assertSafeOutboundUrl(raw: string, options: OutboundGuardOptions): Promise<URL> {
  return (await vetOutboundUrl(raw, options)).url;
}

function unresolved(param: string, source: string, host: string, cause: unknown): ApiError {
  return new ApiError(502, 'outbound_host_unresolved', `${source} names ${host}, which could not be resolved`, 'upstream_error', {
    param,
    cause,
  });
}

/** "[::1]" -> "::1"; "example.com." -> "example.com". */
function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

interface TrustedHost {
  host: string;
  port: string | undefined;
}

const parsedTrustLists = new WeakMap<readonly string[], TrustedHost[]>();

function isTrusted(url: URL, trustedHosts: readonly string[]): boolean {
  if (trustedHosts.length === 0) return false;
  let trusted = parsedTrustLists.get(trustedHosts);
  if (!trusted) {
    trusted = trustedHosts.flatMap(parseTrustedHost);
    parsedTrustLists.set(trustedHosts, trusted);
  }
  const host = bare(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return trusted.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
}

/** Parsed like a URL host so "127.1" or "[::1]:8080" in the setting match the URL's normal form. */
function parseTrustedHost(entry: string): TrustedHost[] {
  const text = isIP(entry) === 6 ? `[${entry}]` : entry;
  try {
    const url = new URL(`http://${text}`);
    const explicitPort = /:\d+$/.test(text);
    return [{ host: bare(url.hostname), port: explicitPort ? url.port || '80' : undefined }];
  } catch {
    return [];
  }
}
