import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { SESSION_COOKIE } from '../../server/auth/session-authenticator.js';

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
