import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export const SESSION_COOKIE = 'gw_session';
/**
 * Cookie-authenticated writes must carry the session's CSRF token in this header: a cross-site
 * form or script cannot read the token or set the header (gw answers no CORS preflight).
 */
export const CSRF_HEADER = 'x-gw-csrf-token';

/** The gw_session cookie's value, read without parsing every cookie. */
export function sessionCookieOf(headers: IncomingHttpHeaders): string | undefined {
  const cookie = headers.cookie;
  if (!cookie || !cookie.includes(SESSION_COOKIE)) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim()) || undefined;
  }
  return undefined;
}

/** Secure whenever gw is reached over TLS: its public URL is https, or this connection is TLS. */
export function cookieIsSecure(publicUrl: string, req: IncomingMessage): boolean {
  return publicUrl.startsWith('https:') || Boolean((req.socket as TLSSocket).encrypted);
}

/** HttpOnly so scripts cannot read it; SameSite=Lax so other sites' forms and scripts do not send it. */
export function sessionCookieHeader(token: string, maxAgeMs: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookieHeader(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
