import type { Role } from './roles.js';

export type ApiKeyType = 'organisation' | 'workspace';
export type ApiKeySubType = 'service' | 'user';

/** What a caller presented: a gw API key, a JWT, a console session, a SCIM token or an OAuth access token. */
export type CredentialKind = 'api_key' | 'jwt' | 'session' | 'scim' | 'oauth';

/**
 * Who is calling: what server/auth/credentials.ts resolves any credential to. Routes, the gateway
 * and the audit and request logs see only this.
 */
export interface Principal {
  credential: CredentialKind;
  /** The API key's id; null for every other credential. */
  keyId: string | null;
  organisationId: string;
  /** The workspace the caller acts in; null for organisation-wide callers (admin keys, organisation managers). */
  workspaceId: string | null;
  /** Where gateway calls land: the key's workspace, or the organisation's default one for admin keys. */
  gatewayWorkspaceId: string;
  /** The gw user behind the credential, when there is one. */
  userId: string | null;
  /** The person as the credential names them (the JWT's user claim, the session user's email), for audit and request logs. */
  subject: string | null;
  /** Organisation-wide or one workspace; for credentials other than API keys, what the caller's reach amounts to. */
  keyType: ApiKeyType;
  subType: ApiKeySubType;
  scopes: ReadonlySet<string>;
  /** Epoch ms after which the presented secret stops working (key expiry, end of a rotation transition, token expiry). */
  validUntil: number | null;
  /** The session, SCIM token or OAuth grant (refresh-token family) behind a non-key credential: what sign-out and revocation name. */
  credentialId?: string;
  /** The person's role, for credentials that stand for a person (JWT, session, OAuth token). */
  role?: Role;
  /** The OAuth client an access token was issued to. */
  oauthClientId?: string;
  /** The resource (RFC 8707) an access token was issued for, when the client named one: the token is good there only. */
  oauthResource?: string;
  /** An API key's allowed_models; absent: every model. */
  allowedModels?: readonly string[];
}

/** Who made a change, for created_by columns: the user, else the key (or the token's subject). */
export function actorOf(principal: Principal): string | null {
  return principal.userId ?? principal.keyId ?? principal.subject;
}
