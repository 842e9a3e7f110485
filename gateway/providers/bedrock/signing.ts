/**
 * SigV4 signing of an upstream request with the maintained AWS signer. The signature covers the
 * host the transport will connect to (taken from the URL, port included), so a custom host works
 * the same as the AWS endpoint. `host` itself is left out of the returned headers: the transport
 * sends exactly that value from the URL.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials } from './credentials.js';

/** The signing name of both bedrock-runtime and the bedrock control plane. */
export const SIGNING_SERVICE = 'bedrock';

/** What the signature covers: a provider request, or a pass-through with its body read whole. */
export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export async function signRequest<T extends SignableRequest>(request: T, credentials: AwsCredentials, signingDate?: Date): Promise<T> {
  const url = new URL(request.url);
  const signer = new SignatureV4({
    service: SIGNING_SERVICE,
    region: credentials.region,
    sha256: Sha256,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken },
  });
  // A key given more than once (a pass-through query) is signed with all its values.
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      // The path keeps its percent-encoding (model ids are encoded once); the signer encodes it
      // again for the canonical request, as AWS expects for every service but S3.
      path: url.pathname,
      query,
      headers: { ...request.headers, host: url.host },
      body: request.body,
    },
    { signingDate },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name.toLowerCase() !== 'host') headers[name] = value;
  }
  return { ...request, headers };
}
