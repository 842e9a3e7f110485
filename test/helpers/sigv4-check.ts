/**
 * An independent SigV4 check for fake AWS upstreams: recomputes the signature of a received
 * request from the secret with node:crypto only (canonical request, string to sign, derived key,
 * as the AWS Signature Version 4 documentation lays them out), so it shares no code with the
 * signer under test. A test of the fake shows the official AWS SDK's requests pass it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignedRequest {
  method: string;
  /** The request target exactly as received (path and query, still percent-encoded). */
  rawUrl: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface SignatureCheck {
  valid: boolean;
  reason?: string;
  accessKeyId?: string;
  region?: string;
  service?: string;
  signedHeaders?: string[];
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/** RFC 3986 unreserved characters stay; everything else is %XX (uppercase), as SigV4 wants. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => {
      const [key = '', value = ''] = pair.split('=');
      return [uriEncode(decodeURIComponent(key)), uriEncode(decodeURIComponent(value))] as const;
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

export function checkSigV4(request: SignedRequest, secretFor: (accessKeyId: string) => string | undefined): SignatureCheck {
  const match = AUTHORIZATION.exec(headerValue(request.headers, 'authorization'));
  if (!match) return { valid: false, reason: 'no AWS4-HMAC-SHA256 authorization header' };
  const [, accessKeyId, date, region, service, signedHeaderList, signature] = match as unknown as string[];
  const base = { accessKeyId, region, service, signedHeaders: signedHeaderList!.split(';') };
  const secret = secretFor(accessKeyId!);
  if (secret === undefined) return { ...base, valid: false, reason: `unknown access key id ${accessKeyId}` };
  const amzDate = headerValue(request.headers, 'x-amz-date');
  if (!amzDate.startsWith(date!)) return { ...base, valid: false, reason: 'x-amz-date does not match the credential scope date' };
  if (!base.signedHeaders.includes('host')) return { ...base, valid: false, reason: 'host is not signed' };

  const bodyHash = sha256Hex(request.body);
  const claimedHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (claimedHash && claimedHash !== bodyHash) return { ...base, valid: false, reason: 'x-amz-content-sha256 does not match the body' };

  const [rawPath = '/', rawQuery = ''] = request.rawUrl.split('?');
  const canonicalUri = rawPath.split('/').map(uriEncode).join('/');
  const canonicalHeaders = base.signedHeaders.map((name) => `${name}:${headerValue(request.headers, name)}\n`).join('');
  const canonicalRequest = [request.method, canonicalUri, canonicalQuery(rawQuery), canonicalHeaders, signedHeaderList, bodyHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
  const valid = timingSafeEqual(expected, Buffer.from(signature!, 'hex'));
  return valid ? { ...base, valid } : { ...base, valid, reason: 'signature mismatch' };
}
