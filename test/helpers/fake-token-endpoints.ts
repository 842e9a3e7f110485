/**
 * Fake token endpoints on loopback, each checking the real request form and issuing tokens it
 * remembers (so a fake upstream can tell a live token from a refused one):
 * - OAuth 2.0 client credentials (RFC 6749 §4.4): `POST /oauth/token`, form
 *   grant_type=client_credentials, client_id, client_secret, optional scope;
 * - Microsoft Entra ID with a federated credential: `POST /<tenant>/oauth2/v2.0/token`, form
 *   client_credentials with client_assertion_type jwt-bearer and client_assertion;
 * - Google STS token exchange (RFC 8693): `POST /v1/token`, then IAM credentials
 *   `POST /v1/projects/-/serviceAccounts/<sa>:generateAccessToken` with the STS token as Bearer.
 * Refusals use each issuer's error shape.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface FakeTokenEndpoints {
  url: string;
  oauthClient: { id: string; secret: string; scope: string };
  azure: { tenant: string; clientId: string; assertion: string };
  google: { audience: string; subjectToken: string; serviceAccount: string };
  /** Every token issued, by issuer. */
  issued: { oauth: string[]; azure: string[]; googleSts: string[]; googleSa: string[] };
  /** Form fields of every token request, in order. */
  forms: URLSearchParams[];
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const token = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export async function startFakeTokenEndpoints(): Promise<FakeTokenEndpoints> {
  const state = {
    oauthClient: { id: 'gw-client', secret: 'oauth-client-secret-for-fake', scope: 'api://models/.default' },
    azure: { tenant: 'tenant-42', clientId: 'workload-client-7', assertion: 'eyJhbGciOiJSUzI1NiJ9.federated.sig' },
    google: { audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/gw', subjectToken: 'external-subject-token', serviceAccount: 'gw@proj.iam.gserviceaccount.com' },
    issued: { oauth: [] as string[], azure: [] as string[], googleSts: [] as string[], googleSa: [] as string[] },
    forms: [] as URLSearchParams[],
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      const path = (req.url ?? '/').split('?')[0]!;
      const formType = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const form = new URLSearchParams(formType ? raw : '');
      if (formType) state.forms.push(form);
      if (req.method === 'POST' && path === '/oauth/token') {
        if (!formType || form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        if (form.get('client_id') !== state.oauthClient.id || form.get('client_secret') !== state.oauthClient.secret) return json(res, 401, { error: 'invalid_client' });
        if (form.has('scope') && form.get('scope') !== state.oauthClient.scope) return json(res, 400, { error: 'invalid_scope' });
        const issued = token('oauth-');
        state.issued.oauth.push(issued);
        return json(res, 200, { access_token: issued, token_type: 'Bearer', expires_in: 3600 });
      }
      if (req.method === 'POST' && path === `/${state.azure.tenant}/oauth2/v2.0/token`) {
        const ok =
          formType &&
          form.get('grant_type') === 'client_credentials' &&
          form.get('client_id') === state.azure.clientId &&
          form.get('scope') === 'https://cognitiveservices.azure.com/.default' &&
          form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
          form.get('client_assertion') === state.azure.assertion &&
          !form.has('client_secret');
        if (!ok) return json(res, 401, { error: 'invalid_client', error_description: 'AADSTS700016: federated assertion rejected' });
        const issued = token('entra-');
        state.issued.azure.push(issued);
        return json(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: issued });
      }
      if (req.method === 'POST' && path === '/v1/token') {
        const ok =
          formType &&
          form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:token-exchange' &&
          form.get('audience') === state.google.audience &&
          form.get('requested_token_type') === 'urn:ietf:params:oauth:token-type:access_token' &&
          form.get('subject_token_type') === 'urn:ietf:params:oauth:token-type:jwt' &&
          form.get('subject_token') === state.google.subjectToken &&
          form.get('scope') === 'https://www.googleapis.com/auth/cloud-platform';
        if (!ok) return json(res, 400, { error: 'invalid_grant', error_description: 'The token exchange request is invalid' });
        const issued = token('ya29.sts-');
        state.issued.googleSts.push(issued);
        return json(res, 200, { access_token: issued, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 3600 });
      }
      if (req.method === 'POST' && path === `/v1/projects/-/serviceAccounts/${state.google.serviceAccount}:generateAccessToken`) {
        const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
        const body = JSON.parse(raw || '{}') as { scope?: string[] };
        if (!bearer || !state.issued.googleSts.includes(bearer)) return json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
        if (!body.scope?.includes('https://www.googleapis.com/auth/cloud-platform')) return json(res, 400, { error: { code: 400, message: 'scope', status: 'INVALID_ARGUMENT' } });
        const issued = token('ya29.sa-');
        state.issued.googleSa.push(issued);
        return json(res, 200, { accessToken: issued, expireTime: new Date(Date.now() + 3600_000).toISOString() });
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/**
 * Writes a Google external-account credential file (workload identity federation) pointing at the
 * fake's STS and IAM endpoints, with its subject token in a file beside it, into `dir`; answers
 * its path (for GOOGLE_APPLICATION_CREDENTIALS).
 */
export function writeGoogleExternalAccount(dir: string, tokens: FakeTokenEndpoints): string {
  const subjectFile = path.join(dir, 'subject-token');
  writeFileSync(subjectFile, tokens.google.subjectToken);
  const googleFile = path.join(dir, 'google-external-account.json');
  writeFileSync(
    googleFile,
    JSON.stringify({
      type: 'external_account',
      audience: tokens.google.audience,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${tokens.url}/v1/token`,
      service_account_impersonation_url: `${tokens.url}/v1/projects/-/serviceAccounts/${tokens.google.serviceAccount}:generateAccessToken`,
      credential_source: { file: subjectFile },
    }),
  );
  return googleFile;
}
