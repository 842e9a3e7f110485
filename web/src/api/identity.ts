/**
 * Who is signed in and what they may do. A key is kept in sessionStorage (gone when the tab
 * closes, never in a URL); a console session (SSO) lives in gw's HttpOnly cookie, so only its
 * CSRF token is held here, in memory.
 */
import { createApi, type Api, type Credential } from './client';
import type { AuthKey, AuthSelf, SsoStatus } from './types';

const KEY_STORAGE = 'gw.console.api_key';
/**
 * A hint (no secret) that this browser signed in with SSO. The console asks GET /v1/auth/self only
 * when it is set, or when gw's SSO callback brings the browser back with SSO_RETURN's marker: a
 * first visit makes no call that answers 401, so the browser's console stays quiet.
 */
const SSO_HINT = 'gw.console.sso';
const SSO_MARKER = 'signed_in';
/** Where gw's SSO callback sends the browser back to (the console, with the marker). */
export const SSO_RETURN = `/console/?${SSO_MARKER}=sso`;

/** May a console session cookie be there? Only after an SSO sign-in in this browser. */
export function mayHaveSession(): boolean {
  const url = new URL(window.location.href);
  if (url.searchParams.get(SSO_MARKER) === 'sso') {
    localStorage.setItem(SSO_HINT, '1');
    url.searchParams.delete(SSO_MARKER);
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return localStorage.getItem(SSO_HINT) === '1';
}

export interface Identity {
  api: Api;
  /** What the header shows: the key's name, or the person's email. */
  label: string;
  scopes: ReadonlySet<string>;
  /** The workspace the caller acts in; null for organisation-wide callers. */
  workspaceId: string | null;
  /** Where gateway calls land (the playground's workspace). */
  gatewayWorkspaceId: string | null;
  organisationWide: boolean;
  /** The caller's organisation (for the public SSO status, which asks about one). */
  organisationId: string;
}

export function can(identity: Identity, scope: string): boolean {
  return identity.scopes.has(scope);
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_STORAGE);
}

/** Signs in with a key: gw answers what the key is and holds (GET /v1/auth/key), else the error. */
export async function signInWithKey(key: string): Promise<Identity> {
  const api = createApi({ kind: 'key', key });
  const self = await api.get<AuthKey>('/v1/auth/key');
  sessionStorage.setItem(KEY_STORAGE, key);
  return {
    api,
    label: self.api_key.name,
    scopes: new Set(self.scopes),
    workspaceId: self.api_key.workspace_id,
    gatewayWorkspaceId: self.workspace_id,
    organisationWide: self.api_key.type === 'organisation',
    organisationId: self.api_key.organisation_id,
  };
}

/**
 * Whether gw offers SSO sign-in (GET /v1/auth/sso/status, public, a yes or no only). It answers
 * 200 either way, so asking costs the sign-in page no failed call; gw unreachable reads as no.
 */
export async function ssoAvailable(): Promise<boolean> {
  try {
    return (await createApi({ kind: 'session', csrf: undefined }).get<SsoStatus>('/v1/auth/sso/status')).enabled;
  } catch {
    return false;
  }
}

/** Resumes a console session from gw's cookie (after SSO sign-in); undefined when there is none. */
export async function resumeSession(): Promise<Identity | undefined> {
  const probe = createApi({ kind: 'session', csrf: undefined });
  let self: AuthSelf;
  try {
    self = await probe.get<AuthSelf>('/v1/auth/self');
  } catch {
    // The session ended (expired or signed out elsewhere): stop asking on every load.
    localStorage.removeItem(SSO_HINT);
    return undefined;
  }
  const credential: Credential = { kind: 'session', csrf: self.csrf_token };
  return {
    api: createApi(credential),
    label: self.user.email ?? self.user.subject ?? 'signed in',
    scopes: new Set(self.scopes),
    workspaceId: self.workspace_id,
    gatewayWorkspaceId: self.workspace_id ?? self.workspaces[0]?.id ?? null,
    organisationWide: self.workspace_id === null,
    organisationId: self.organisation.id,
  };
}

export async function signOut(identity: Identity): Promise<void> {
  forgetKey();
  localStorage.removeItem(SSO_HINT);
  if (identity.api.credential.kind === 'session') await identity.api.send('POST', '/v1/auth/sign-out').catch(() => undefined);
}
