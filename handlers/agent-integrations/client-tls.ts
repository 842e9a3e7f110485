/**
 * An agent integration's client certificate (mTLS): checked when saved (PEM that parses, a key
 * that belongs to the certificate), the private key sealed apart from the rest and masked in every
 * answer; on update a key left out or sent back as its mask keeps its value, and null removes all.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ValidationError } from '../../core/errors.js';
import { maskSecret, type SecretBox } from '../../store/secret-box.js';
import type { AgentClientTls } from '../../store/repositories/agent-integrations.js';

export interface ClientTlsInput {
  certificate: string;
  private_key?: string;
  ca_certificates?: string | null;
}

interface Stored {
  client_tls: AgentClientTls | null;
  client_tls_key: string | null;
}

function checked(certificate: string, key: string, ca: string | null | undefined, param: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificate);
  } catch {
    throw new ValidationError('client_tls.certificate is not a PEM certificate', `${param}.certificate`, 'invalid_client_certificate');
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ValidationError('client_tls.private_key is not an unencrypted PEM private key', `${param}.private_key`, 'invalid_client_certificate');
  }
  if (!cert.checkPrivateKey(privateKey)) throw new ValidationError('client_tls.private_key does not belong to client_tls.certificate', `${param}.private_key`, 'invalid_client_certificate');
  if (ca) {
    try {
      new X509Certificate(ca);
    } catch {
      throw new ValidationError('client_tls.ca_certificates is not PEM certificates', `${param}.ca_certificates`, 'invalid_client_certificate');
    }
  }
}

/** The stored form of a client_tls given in a request (undefined: unchanged). */
export function sealClientTls(box: SecretBox, input: ClientTlsInput | null | undefined, previous: Stored | undefined): Stored | undefined {
  if (input === undefined) return undefined;
  if (input === null) return { client_tls: null, client_tls_key: null };
  const previousKey = previous?.client_tls_key ? box.open(previous.client_tls_key) : undefined;
  const keepsKey = input.private_key === undefined || (previousKey !== undefined && input.private_key === maskSecret(previousKey));
  const key = keepsKey ? previousKey : input.private_key;
  if (!key) throw new ValidationError('client_tls.private_key is required with a new client certificate', 'client_tls.private_key', 'invalid_client_certificate');
  const ca = input.ca_certificates ?? null;
  checked(input.certificate, key, ca, 'client_tls');
  return { client_tls: { certificate: input.certificate, private_key: maskSecret(key), ca_certificates: ca }, client_tls_key: box.seal(key) };
}

/** A client_tls given for one call (a card read before registration), checked, as the fetch takes it. */
export function unsavedClientTls(input: ClientTlsInput | undefined): { cert: string; key: string; ca?: string } | undefined {
  if (!input) return undefined;
  if (!input.private_key) throw new ValidationError('client_tls.private_key is required', 'client_tls.private_key', 'invalid_client_certificate');
  checked(input.certificate, input.private_key, input.ca_certificates, 'client_tls');
  return { cert: input.certificate, key: input.private_key, ...(input.ca_certificates ? { ca: input.ca_certificates } : {}) };
}
