/**
 * AWS Secrets Manager through the maintained SDK client (`GetSecretValue`), signed with the
 * reference's access keys, or with credentials for `aws_role_arn` obtained from STS `AssumeRole`
 * (signed with those keys) and reused until shortly before they expire. Custom endpoints
 * (`aws_endpoint`, `aws_sts_endpoint`) pass the outbound address guard; the SDK's sockets resolve
 * names through the guarded lookup, so DNS cannot swap in a private address either.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { createGuardedLookup } from '../outbound/pinned-lookup.js';
import { TokenCache } from '../outbound/token-cache.js';
import { vetOutboundUrl } from '../outbound/url-guard.js';
import { SecretManagerError, text, type ManagerOutbound, type OpenReference, type SecretManagerClient, type SecretValue } from './secret-manager.js';

interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** Why an SDK call failed, without its message (which could quote request data). */
function sdkFailure(what: string, error: unknown): SecretManagerError {
  if (error instanceof SecretManagerError) return error;
  const failed = error as { name?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const status = failed.$metadata?.httpStatusCode;
  return new SecretManagerError(`${what} failed: ${failed.name ?? failed.code ?? 'error'}${status ? ` (HTTP ${status})` : ''}`);
}

export class AwsSecretsManagerClient implements SecretManagerClient {
  private readonly assumed: TokenCache<AwsCredentials>;
  /** One SDK client per reference version: keeps its connections alive between reads. */
  private readonly clients = new Map<string, SecretsManagerClient>();

  constructor(private readonly outbound: ManagerOutbound & { resolve?: Parameters<typeof createGuardedLookup>[0] }) {
    this.assumed = new TokenCache(outbound.now);
  }

  async read(reference: OpenReference): Promise<SecretValue> {
    const client = await this.client(reference);
    let answer;
    try {
      answer = await client.send(new GetSecretValueCommand({ SecretId: reference.secret_path }), { abortSignal: AbortSignal.timeout(this.outbound.timeoutMs) });
    } catch (error) {
      throw sdkFailure('AWS Secrets Manager GetSecretValue', error);
    }
    if (answer.SecretString !== undefined) return answer.SecretString;
    if (answer.SecretBinary !== undefined) return Buffer.from(answer.SecretBinary).toString('utf8');
    throw new SecretManagerError('AWS Secrets Manager answered no SecretString');
  }

  private async client(reference: OpenReference): Promise<SecretsManagerClient> {
    const key = reference.id + reference.version;
    const existing = this.clients.get(key);
    if (existing) return existing;
    const region = text(reference.auth.aws_region);
    if (!region) throw new SecretManagerError('auth_config.aws_region is missing');
    const endpoint = text(reference.auth.aws_endpoint) ?? `https://secretsmanager.${region}.amazonaws.com`;
    const keys = this.keys(reference);
    const roleArn = text(reference.auth.aws_role_arn);
    const client = new SecretsManagerClient({
      region,
      endpoint,
      maxAttempts: 1,
      requestHandler: await this.handler(endpoint, 'auth_config.aws_endpoint'),
      credentials: roleArn ? () => this.assumed.get(key, () => this.assumeRole(reference, region, roleArn, keys)) : keys,
    });
    // An edited reference gets a new client; the old one's connections close.
    for (const [old, stale] of this.clients) {
      if (old.startsWith(reference.id) && old !== key) {
        stale.destroy();
        this.clients.delete(old);
      }
    }
    this.clients.set(key, client);
    return client;
  }

  private keys(reference: OpenReference): AwsCredentials {
    const accessKeyId = text(reference.auth.aws_access_key_id);
    const secretAccessKey = text(reference.auth.aws_secret_access_key);
    if (!accessKeyId || !secretAccessKey) throw new SecretManagerError('auth_config needs aws_access_key_id and aws_secret_access_key');
    const sessionToken = text(reference.auth.aws_session_token);
    return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
  }

  private async assumeRole(reference: OpenReference, region: string, roleArn: string, keys: AwsCredentials) {
    const endpoint = text(reference.auth.aws_sts_endpoint) ?? `https://sts.${region}.amazonaws.com`;
    const sts = new STSClient({ region, endpoint, maxAttempts: 1, credentials: keys, requestHandler: await this.handler(endpoint, 'auth_config.aws_sts_endpoint') });
    try {
      const answer = await sts.send(
        new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'gw-secret-reference', ExternalId: text(reference.auth.aws_external_id) }),
        { abortSignal: AbortSignal.timeout(this.outbound.timeoutMs) },
      );
      const c = answer.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey) throw new SecretManagerError('STS AssumeRole answered no credentials');
      const credentials: AwsCredentials = { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: c.Expiration };
      return { value: credentials, expiresAt: c.Expiration?.getTime() };
    } catch (error) {
      throw sdkFailure('STS AssumeRole', error);
    } finally {
      sts.destroy();
    }
  }

  /** Sockets for one endpoint: vetted now, and resolved through the guarded lookup unless trusted. */
  private async handler(endpoint: string, param: string) {
    let vetted;
    try {
      vetted = await vetOutboundUrl(endpoint, { trustedHosts: this.outbound.trustedHosts, resolveNames: false, param, code: 'secret_manager_refused' });
    } catch (error) {
      throw new SecretManagerError((error as Error).message);
    }
    if (vetted.trusted) return { requestTimeout: this.outbound.timeoutMs };
    const lookup = createGuardedLookup(this.outbound.resolve);
    return { requestTimeout: this.outbound.timeoutMs, httpAgent: new HttpAgent({ keepAlive: true, lookup }), httpsAgent: new HttpsAgent({ keepAlive: true, lookup }) };
  }
}
