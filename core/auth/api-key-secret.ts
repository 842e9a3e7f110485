import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256.js';

const PREFIX = 'gw-';

/** A new high-entropy secret; only its hash is stored. */
export function generateApiKeySecret(): string {
  return PREFIX + randomBytes(24).toString('base64url');
}

/** SHA-256 is enough for secrets with 192 bits of entropy, and cheap on every request. */
export function hashApiKeySecret(secret: string): string {
  return sha256Hex(secret);
}

export function maskApiKeySecret(secret: string): string {
  return `${secret.slice(0, 6)}...${secret.slice(-4)}`;
}
