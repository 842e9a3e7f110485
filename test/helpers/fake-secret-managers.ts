/**
 * Fake secret managers on loopback speaking the real wire formats, each checking what a real one
 * checks and counting reads (so tests can see caching):
 * - HashiCorp Vault: KV v2 `GET /v1/<mount>/data/<path>` with X-Vault-Token (and namespace),
 *   AppRole `POST /v1/auth/approle/login`; errors as `{"errors": [...]}`.
 * - AWS Secrets Manager (JSON 1.1, `x-amz-target: secretsmanager.GetSecretValue`) and STS
 *   (query protocol, `Action=AssumeRole`, XML answer), both SigV4-checked; a test of the fake reads
 *   it with the official SDK clients.
 * - Azure: Entra `POST /<tenant>/oauth2/v2.0/token` (client-credentials form) and Key Vault
 *   `GET /secrets/<name>?api-version=7.4` with the bearer token it issued.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkSigV4 } from './sigv4-check.js';

interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void): Promise<Listening> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => handler(req, Buffer.concat(parts), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(JSON.stringify(body));
}

export interface FakeVault extends Listening {
  /** KV v2 data by `<mount>/<path>`. */
  secrets: Map<string, Record<string, unknown>>;
  tokens: Set<string>;
  approle: { roleId: string; secretId: string };
  /** Required X-Vault-Namespace when set. */
  namespace?: string;
  reads: number;
  logins: number;
}

export async function startFakeVault(): Promise<FakeVault> {
  const state = { secrets: new Map(), tokens: new Set<string>(), approle: { roleId: 'role-id-1', secretId: 'secret-id-1' }, reads: 0, logins: 0 } as Omit<FakeVault, 'url' | 'close'>;
  const server = await listen((req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://vault');
    if (req.method === 'POST' && url.pathname === '/v1/auth/approle/login') {
      state.logins++;
      const login = JSON.parse(body.toString('utf8') || '{}') as { role_id?: string; secret_id?: string };
      if (login.role_id !== state.approle.roleId || login.secret_id !== state.approle.secretId) return json(res, 400, { errors: ['invalid role or secret ID'] });
      const token = `hvs.${randomBytes(12).toString('hex')}`;
      state.tokens.add(token);
      return json(res, 200, { request_id: 'r', lease_id: '', renewable: false, lease_duration: 0, data: null, auth: { client_token: token, policies: ['default'], lease_duration: 2764800, renewable: true } });
    }
    const match = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return json(res, 404, { errors: [] });
    if (!state.tokens.has(String(req.headers['x-vault-token'] ?? '')) || (state.namespace && req.headers['x-vault-namespace'] !== state.namespace)) {
      return json(res, 403, { errors: ['permission denied'] });
    }
    state.reads++;
    const data = state.secrets.get(`${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`);
    if (!data) return json(res, 404, { errors: [] });
    json(res, 200, {
      request_id: 'r',
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: { data, metadata: { created_time: new Date().toISOString(), custom_metadata: null, deletion_time: '', destroyed: false, version: 1 } },
      wrap_info: null,
      warnings: null,
      auth: null,
    });
  });
  return Object.assign(state, server) as FakeVault;
}

export interface FakeAws extends Listening {
  /** SecretString by name. */
  secrets: Map<string, string>;
  /** Access key id -> secret access key the fake accepts (issued STS keys are added here). */
  keys: Map<string, string>;
  /** Role ARNs that may be assumed, with the external id each requires (or undefined). */
  roles: Map<string, string | undefined>;
  reads: number;
  assumed: number;
  /** Access key ids that signed each GetSecretValue, in order. */
  signers: string[];
  /** Session tokens sent with those reads. */
  sessionTokens: Array<string | undefined>;
}

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  json(res, status, { __type: type, message }, 'application/x-amz-json-1.1');
}

function stsError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r</RequestId></ErrorResponse>`);
}

/** One loopback server answering both Secrets Manager and STS (told apart by protocol). */
export async function startFakeAws(): Promise<FakeAws> {
  const state = { secrets: new Map(), keys: new Map(), roles: new Map(), reads: 0, assumed: 0, signers: [], sessionTokens: [] } as Omit<FakeAws, 'url' | 'close'>;
  const server = await listen((req, body, res) => {
    const check = checkSigV4({ method: req.method ?? 'POST', rawUrl: req.url ?? '/', headers: req.headers, body }, (id) => state.keys.get(id));
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target) {
      if (!check.valid || check.service !== 'secretsmanager') return awsError(res, 400, 'UnrecognizedClientException', `The security token included in the request is invalid (${check.reason ?? check.service})`);
      if (target !== 'secretsmanager.GetSecretValue') return awsError(res, 400, 'InvalidAction', target);
      const { SecretId } = JSON.parse(body.toString('utf8')) as { SecretId: string };
      state.reads++;
      state.signers.push(check.accessKeyId!);
      state.sessionTokens.push(req.headers['x-amz-security-token'] as string | undefined);
      const value = state.secrets.get(SecretId);
      if (value === undefined) return awsError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      return json(
        res,
        200,
        { ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${SecretId}-AbCdEf`, Name: SecretId, SecretString: value, VersionId: 'v1', VersionStages: ['AWSCURRENT'], CreatedDate: 1.7e9 },
        'application/x-amz-json-1.1',
      );
    }
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('Action') !== 'AssumeRole' || form.get('Version') !== '2011-06-15') return stsError(res, 400, 'InvalidAction', 'unknown action');
    if (!check.valid || check.service !== 'sts') return stsError(res, 403, 'SignatureDoesNotMatch', String(check.reason));
    const roleArn = form.get('RoleArn') ?? '';
    if (!state.roles.has(roleArn)) return stsError(res, 403, 'AccessDenied', 'not authorized to perform sts:AssumeRole');
    const externalId = state.roles.get(roleArn);
    if (externalId !== undefined && form.get('ExternalId') !== externalId) return stsError(res, 403, 'AccessDenied', 'external id mismatch');
    if (!form.get('RoleSessionName')) return stsError(res, 400, 'ValidationError', 'RoleSessionName is required');
    state.assumed++;
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const secret = randomBytes(20).toString('base64');
    state.keys.set(accessKeyId, secret);
    const expiration = new Date(Date.now() + 3600_000).toISOString();
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
        `<AssumedRoleUser><AssumedRoleId>AROA:${form.get('RoleSessionName')}</AssumedRoleId><Arn>${roleArn}/${form.get('RoleSessionName')}</Arn></AssumedRoleUser>` +
        `<Credentials><AccessKeyId>${accessKeyId}</AccessKeyId><SecretAccessKey>${secret}</SecretAccessKey><SessionToken>session-${accessKeyId}</SessionToken><Expiration>${expiration}</Expiration></Credentials>` +
        `</AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  });
  return Object.assign(state, server) as FakeAws;
}

export interface FakeAzure extends Listening {
  /** Secret values by name. */
  secrets: Map<string, string>;
  tenant: string;
  client: { id: string; secret: string };
  tokensIssued: number;
  reads: number;
  /** The form fields of every token request, to check the real request form. */
  tokenForms: URLSearchParams[];
}

/** Entra token endpoint and Key Vault on one loopback origin (the test points both fields at it). */
export async function startFakeAzure(): Promise<FakeAzure> {
  const issued = new Set<string>();
  const state = { secrets: new Map(), tenant: 'tenant-1', client: { id: 'client-1', secret: 'entra-client-secret-1' }, tokensIssued: 0, reads: 0, tokenForms: [] } as Omit<FakeAzure, 'url' | 'close'>;
  const server = await listen((req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://azure');
    if (req.method === 'POST' && url.pathname === `/${state.tenant}/oauth2/v2.0/token`) {
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return json(res, 400, { error: 'invalid_request' });
      const form = new URLSearchParams(body.toString('utf8'));
      state.tokenForms.push(form);
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://vault.azure.net/.default') return json(res, 400, { error: 'invalid_request' });
      if (form.get('client_id') !== state.client.id || form.get('client_secret') !== state.client.secret) return json(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215' });
      state.tokensIssued++;
      const token = `eyJ.${randomBytes(12).toString('hex')}`;
      issued.add(token);
      return json(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }
    const match = /^\/secrets\/([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return json(res, 404, { error: { code: 'NotFound', message: 'no route' } });
    if (url.searchParams.get('api-version') !== '7.4') return json(res, 400, { error: { code: 'BadParameter', message: 'api-version' } });
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!token || !issued.has(token)) {
      res.setHeader('www-authenticate', 'Bearer authorization="https://login.microsoftonline.com/tenant-1", resource="https://vault.azure.net"');
      return json(res, 401, { error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } });
    }
    state.reads++;
    const name = decodeURIComponent(match[1]!);
    const value = state.secrets.get(name);
    if (value === undefined) return json(res, 404, { error: { code: 'SecretNotFound', message: `A secret with (name/id) ${name} was not found in this key vault.` } });
    json(res, 200, { value, id: `${server.url}/secrets/${name}/0123456789abcdef`, attributes: { enabled: true, created: 1.7e9, updated: 1.7e9, recoveryLevel: 'Recoverable+Purgeable' }, tags: {} });
  });
  return Object.assign(state, server) as FakeAzure;
}
