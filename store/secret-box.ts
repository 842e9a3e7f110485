import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypts secrets at rest with AES-256-GCM; the stored form is `v1:` + base64(iv | tag | ciphertext). */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** How a secret is shown in any response: its first and last four characters at most. */
export function maskSecret(secret: string): string {
  if (secret.length <= 12) return '*'.repeat(secret.length);
  return `${secret.slice(0, 4)}${'*'.repeat(8)}${secret.slice(-4)}`;
}
