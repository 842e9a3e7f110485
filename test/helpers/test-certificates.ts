/**
 * Certificates made at test time with openssl: a CA, a server certificate for 127.0.0.1 and a
 * client certificate, all signed by that CA (PEM), for TLS and mTLS on loopback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'gw-certs-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    openssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.crt'), '-subj', '/CN=gw test CA', '-days', '2');
    const signed = (name: string, subject: string, extensions: string) => {
      writeFileSync(at(`${name}.ext`), extensions);
      openssl('req', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject);
      openssl('x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at(`${name}.crt`), '-days', '2', '-extfile', at(`${name}.ext`));
    };
    signed('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    signed('client', '/CN=gw client', 'extendedKeyUsage=clientAuth\n');
    const read = (name: string) => readFileSync(at(name), 'utf8');
    return { ca: read('ca.crt'), serverCert: read('server.crt'), serverKey: read('server.key'), clientCert: read('client.crt'), clientKey: read('client.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
