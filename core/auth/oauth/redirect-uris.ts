/**
 * A redirect URI a client may register (OAuth 2.1 section 2.3.1; RFC 8252 for native apps on
 * loopback): an absolute https URL, or http on a loopback host, never with a fragment.
 * Returns why not, or undefined when acceptable.
 */
export function redirectUriProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not a valid URL`;
  }
  if (raw.includes('#')) return `${raw} has a fragment`;
  if (url.username || url.password) return `${raw} carries credentials`;
  if (url.protocol === 'https:') return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  if (url.protocol === 'http:' && loopback) return undefined;
  return `${raw} must use https (or http on a loopback host)`;
}

/** The exact match OAuth 2.1 requires, except that a loopback redirect may use any port (RFC 8252 section 7.3). */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = new URL(registered);
  const b = new URL(presented);
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(a.hostname);
  return loopback && a.protocol === b.protocol && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}
