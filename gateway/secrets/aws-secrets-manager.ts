/**
 * AWS Secrets Manager through the maintained SDK client (`GetSecretValue`), signed with the
 * reference's access keys, or with credentials for `aws_role_arn` obtained from STS `AssumeRole`
 * (signed with those keys) and reused until shortly before they expire. Custom endpoints
 * (`aws_endpoint`, `aws_sts_endpoint`) and the default ones pass the outbound address guard
 * (aws-sdk-outbound.ts).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ApiError } from '../../core/errors.js';
import { assumeAwsRole, awsFailureReason, guardedAwsHandler, type AwsKeys } from '../outbound/aws-sdk-outbound.js';
import { TokenCache } from '../outbound/token-cache.js';
import type { ResolveHost } from '../outbound/url-guard.js';
import { SecretManagerError, text, type ManagerOutbound, type OpenReference, type SecretManagerClient, type SecretValue } from './secret-manager.js';

function sdkFailure(what: string, error: unknown): SecretManagerError {
  if (error instanceof SecretManagerError) return error;
  if (error instanceof ApiError) return new SecretManagerError(error.message);
  return new SecretManagerError(`${what} failed: ${awsFailureReason(error)}`);
}

export class AwsSecretsManagerClient implements SecretManagerClient {
  private readonly assumed: TokenCache<AwsKeys>;
  /** One SDK client per reference version: keeps its connections alive between reads. */
  private readonly clients = new Map<string, SecretsManagerClient>();

  constructor(private readonly outbound: ManagerOutbound & { resolve?: ResolveHost }) {
    this.assumed = new TokenCache(outbound.now);
  }

  async read(reference: OpenReference): Promise<SecretValue> {
    let answer;
    try {
      const client = await this.client(reference);
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
      requestHandler: await guardedAwsHandler(endpoint, 'auth_config.aws_endpoint', 'secret_manager_refused', this.outbound),
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

  private keys(reference: OpenReference): AwsKeys {
    const accessKeyId = text(reference.auth.aws_access_key_id);
    const secretAccessKey = text(reference.auth.aws_secret_access_key);
    if (!accessKeyId || !secretAccessKey) throw new SecretManagerError('auth_config needs aws_access_key_id and aws_secret_access_key');
    const sessionToken = text(reference.auth.aws_session_token);
    return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
  }

  private async assumeRole(reference: OpenReference, region: string, roleArn: string, keys: AwsKeys) {
    try {
      return await assumeAwsRole(
        {
          region,
          roleArn,
          externalId: text(reference.auth.aws_external_id),
          sessionName: 'gw-secret-reference',
          keys,
          endpoint: text(reference.auth.aws_sts_endpoint),
          param: 'auth_config.aws_sts_endpoint',
          code: 'secret_manager_refused',
        },
        this.outbound,
      );
    } catch (error) {
      throw sdkFailure('STS AssumeRole', error);
    }
  }
}
