/**
 * Credentials in a deployment snapshot are sealed for the one data plane that asked: the data
 * plane sends an X25519 public key (it keeps the private half in memory only), the control plane
 * answers with its own one-off public key, and each secret is AES-256-GCM under
 * HKDF-SHA256(X25519 shared secret). Someone who reads the transfer, or holds the deployment key,
 * still cannot open them; the data plane re-seals each under its own GW_ENCRYPTION_KEY at once.
 */
import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const INFO = 'gw deployment sync v1';

/** A public key as it travels: base64 of its SPKI DER form. */
export function exportPublicKey(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** undefined when the text is not an X25519 public key. */
export function importPublicKey(text: string): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: Buffer.from(text, 'base64'), type: 'spki', format: 'der' });
    return key.asymmetricKeyType === 'x25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

function transferKey(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  const shared = diffieHellman({ privateKey, publicKey });
  return Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), INFO, 32));
}

/** The control plane's side: a one-off key pair per answer, and a sealer for the data plane's key. */
export function sealerFor(recipient: KeyObject): { publicKey: string; seal: (plaintext: string) => string } {
  const pair = generateKeyPairSync('x25519');
  const key = transferKey(pair.privateKey, recipient);
  return {
    publicKey: exportPublicKey(pair.publicKey),
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
  };
}

/** The data plane's side: its key pair for this process, and an opener for one answer. */
export class TransferKeys {
  private readonly pair = generateKeyPairSync('x25519');
  readonly publicKey = exportPublicKey(this.pair.publicKey);

  openerFor(senderPublicKey: string): (sealed: string) => string {
    const sender = importPublicKey(senderPublicKey);
    if (!sender) throw new Error('the control plane sent no valid sealing key');
    const key = transferKey(this.pair.privateKey, sender);
    return (sealed) => {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    };
  }
}
