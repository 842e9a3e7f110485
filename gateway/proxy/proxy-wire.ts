/**
 * What of a pass-through request goes upstream and what of the answer comes back. The path is
 * joined to the provider's API base, so a dot segment (`..`, also percent-encoded) that would
 * climb out of it is refused. Upstream go the body's own headers only: gw's headers, the caller's
 * credentials and hop-by-hop headers never do (headers named in x-gw-forward-headers are added by
 * the target, as on chat). Back come the answer's headers but hop-by-hop ones, which the transport owns.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../../core/errors.js';

/** The caller's headers that describe the body and the wanted answer. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'accept'] as const;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-connection']);

/** `/v1/images/generations?x=1` -> `/images/generations?x=1`; throws on a dot segment. */
export function pathBelow(prefix: string, url: string): string {
  return assertStaysBelowBase(url.slice(prefix.length - 1), null);
}

/** Returns the path (`/...`, query allowed) when joining it to a base URL cannot climb out of the base. */
export function assertStaysBelowBase(path: string, param: string | null): string {
  const pathname = path.split('?', 1)[0]!;
  if (!pathname.startsWith('/') || pathname.startsWith('//')) {
    throw new ValidationError('The path must start with a single /', param, 'invalid_pass_through_path');
  }
  for (const segment of pathname.split('/')) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // Malformed escapes were refused by the dispatcher already.
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\')) {
      throw new ValidationError('The path may not hold dot segments or encoded slashes', param, 'invalid_pass_through_path');
    }
  }
  return path;
}

export function upstreamBodyHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BODY_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** The upstream answer's headers as the client gets them. */
export function answerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}
