/**
 * A JSON Web Key Set on loopback whose keys a test can rotate, and tokens signed with them
 * (jose, the library gw verifies with). Counts fetches so tests can see refetch limits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigningKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export function signJwt(key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
}

export interface JwksServer {
  url: string;
  /** What the set publishes now. */
  keys: SigningKey[];
  fetches: number;
  close(): Promise<void>;
}

export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  const state = { keys, fetches: 0 };
  const server: Server = createServer((req, res) => {
    state.fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: state.keys.map((key) => key.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    get keys() {
      return state.keys;
    },
    set keys(next) {
      state.keys = next;
    },
    get fetches() {
      return state.fetches;
    },
    set fetches(n) {
      state.fetches = n;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
