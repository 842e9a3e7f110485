import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256.js';

/**
 * Opaque bearer secrets other than API keys. The prefix tells at a glance (and to the credential
 * resolver) what a token is; only the SHA-256 of a token is stored.
 */
export const TOKEN_PREFIXES = {
  session: 'gws_',
  scim: 'gwscim_',
  oauthAccess: 'gwat_',
  oauthRefresh: 'gwrt_',
  oauthCode: 'gwac_',
  oauthClientSecret: 'gwcs_',
} as const;

export function newOpaqueToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export const hashOpaqueToken = sha256Hex;
