import type { ApiKeySubType, ApiKeyType } from '../../store/repositories/api-keys.js';

/** Who is calling: what the authentication stage resolves a key (or, later, a JWT) to. */
export interface Principal {
  keyId: string;
  organisationId: string;
  /** The key's own workspace; null for organisation (admin) keys. */
  workspaceId: string | null;
  /** Where gateway calls land: the key's workspace, or the organisation's default one for admin keys. */
  gatewayWorkspaceId: string;
  userId: string | null;
  keyType: ApiKeyType;
  subType: ApiKeySubType;
  scopes: ReadonlySet<string>;
  /** Epoch ms after which the presented secret stops working (key expiry or end of a rotation transition). */
  validUntil: number | null;
}
