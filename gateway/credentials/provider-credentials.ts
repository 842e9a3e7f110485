/**
 * Credentials a saved provider's auth type calls for, obtained per request (from a cache):
 *
 * - `oauthClientCredentials`: a token from `oauth_token_endpoint` (client-credentials grant, client
 *   id and secret in the form, optional `oauth_scope`), sent as `Authorization: Bearer`;
 * - `workload` / `entraFederated`: an Entra token for Azure OpenAI (scope
 *   `https://cognitiveservices.azure.com/.default`) exchanged for the host's federated token
 *   (AZURE_FEDERATED_TOKEN_FILE) as a client assertion, with the workload identity's client and tenant ids;
 * - `wif`: Google workload identity federation: the host's external subject token exchanged at
 *   Google STS (RFC 8693) for an access token, then a service account's token when the
 *   credentials file names one to impersonate;
 * - Bedrock with `aws_role_arn`: temporary keys from STS AssumeRole, signed with the provider's keys.
 *
 * Tokens are reused until shortly before they expire (TokenCache); `renewCredentials` on the
 * target drops the token and fetches a new one, which the call stage does once after a 401.
 * Every token endpoint a user names passes the outbound address guard.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ApiError } from '../../core/errors.js';
import { assumeAwsRole, awsFailureReason, type AwsKeys, type AwsOutbound } from '../outbound/aws-sdk-outbound.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import { TokenCache } from '../outbound/token-cache.js';
import type { ProviderTarget } from '../providers/types.js';
import { credentialUnavailable, requestToken } from './token-request.js';

type Fields = Record<string, unknown>;

export interface HostIdentity {
  azureFederatedTokenFile: string | undefined;
  azureAuthorityHost: string;
  azureTenantId: string | undefined;
  azureClientId: string | undefined;
  googleCredentialsFile: string | undefined;
}

const AZURE_OPENAI_SCOPE = 'https://cognitiveservices.azure.com/.default';
const GOOGLE_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const digest = (text: string) => createHash('sha256').update(text).digest('hex');

function need(value: string | undefined, what: string): string {
  if (!value) throw new ApiError(400, 'provider_credential_missing', `${what} is not configured`, 'invalid_request_error');
  return value;
}

/** The auth types (and Bedrock's assumed role) that need a credential fetched per request. */
export function needsCredentials(authType: string, fields: Fields): boolean {
  return authType === 'oauthClientCredentials' || authType === 'workload' || authType === 'entraFederated' || authType === 'wif' || str(fields.aws_role_arn) !== undefined;
}

export class ProviderCredentials {
  private readonly tokens: TokenCache<string>;
  private readonly awsKeys: TokenCache<AwsKeys>;

  constructor(
    private readonly fetch: GuardedFetch,
    private readonly aws: AwsOutbound,
    private readonly identity: HostIdentity,
    private readonly now: () => number,
  ) {
    this.tokens = new TokenCache(now);
    this.awsKeys = new TokenCache(now);
  }

  /** The target carrying the credential `authType` needs (unchanged for plain API keys). */
  async authorize(authType: string, target: ProviderTarget, fields: Fields): Promise<ProviderTarget> {
    if (str(fields.aws_role_arn) && target.provider === 'bedrock') return this.assumedRole(target, fields);
    const source = this.tokenSource(authType, fields);
    if (!source) return target;
    const token = await this.tokens.get(source.key, source.fetch);
    return {
      ...target,
      accessToken: token,
      renewCredentials: async () => {
        this.tokens.drop(source.key);
        return this.authorize(authType, target, fields);
      },
    };
  }

  private get call() {
    return { fetch: this.fetch, now: this.now, timeoutMs: this.aws.timeoutMs };
  }

  private tokenSource(authType: string, fields: Fields) {
    if (authType === 'oauthClientCredentials') {
      const endpoint = need(str(fields.oauth_token_endpoint), 'configurations.oauth_token_endpoint');
      const clientId = need(str(fields.oauth_client_id), 'configurations.oauth_client_id');
      const secret = need(str(fields.oauth_client_secret), 'configurations.oauth_client_secret');
      const scope = str(fields.oauth_scope);
      const form: Record<string, string> = { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, ...(scope ? { scope } : {}) };
      return { key: `oauth\n${endpoint}\n${clientId}\n${scope ?? ''}\n${digest(secret)}`, fetch: () => requestToken(this.call, 'The OAuth token endpoint', endpoint, { form }) };
    }
    if (authType === 'workload' || authType === 'entraFederated') {
      const tenant = need(str(fields.azure_workload_tenant_id) ?? this.identity.azureTenantId, 'configurations.azure_workload_tenant_id (or AZURE_TENANT_ID)');
      const clientId = need(str(fields.azure_workload_client_id) ?? this.identity.azureClientId, 'configurations.azure_workload_client_id (or AZURE_CLIENT_ID)');
      const tokenFile = need(this.identity.azureFederatedTokenFile, 'AZURE_FEDERATED_TOKEN_FILE (the workload identity token)');
      const url = `${this.identity.azureAuthorityHost}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
      return {
        key: `azure\n${tenant}\n${clientId}`,
        fetch: async () => {
          // Read each time: the platform rotates the projected token file.
          const assertion = (await readFile(tokenFile, 'utf8')).trim();
          const form = { grant_type: 'client_credentials', client_id: clientId, scope: AZURE_OPENAI_SCOPE, client_assertion_type: JWT_BEARER, client_assertion: assertion };
          return requestToken(this.call, 'Microsoft Entra ID', url, { form });
        },
      };
    }
    if (authType === 'wif') {
      const file = need(this.identity.googleCredentialsFile, 'GOOGLE_APPLICATION_CREDENTIALS (an external_account credentials file)');
      return { key: `google\n${file}`, fetch: () => this.googleToken(file) };
    }
    return undefined;
  }

  private async googleToken(file: string) {
    const config = JSON.parse(await readFile(file, 'utf8')) as {
      type?: string;
      audience?: string;
      subject_token_type?: string;
      token_url?: string;
      service_account_impersonation_url?: string;
      credential_source?: { file?: string };
    };
    if (config.type !== 'external_account' || !config.audience || !config.subject_token_type || !config.credential_source?.file) {
      throw credentialUnavailable('Google workload identity federation', 'GOOGLE_APPLICATION_CREDENTIALS is not an external_account file with a credential_source.file');
    }
    const subjectToken = (await readFile(config.credential_source.file, 'utf8')).trim();
    const federated = await requestToken(this.call, 'Google STS', config.token_url ?? 'https://sts.googleapis.com/v1/token', {
      form: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        audience: config.audience,
        scope: GOOGLE_SCOPE,
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        subject_token_type: config.subject_token_type,
        subject_token: subjectToken,
      },
    });
    if (!config.service_account_impersonation_url) return federated;
    return requestToken(
      this.call,
      'Google IAM credentials (service account impersonation)',
      config.service_account_impersonation_url,
      { json: { scope: [GOOGLE_SCOPE], lifetime: '3600s' }, headers: { authorization: `Bearer ${federated.value}` } },
      { token: 'accessToken', expireTime: 'expireTime' },
    );
  }

  private async assumedRole(target: ProviderTarget, fields: Fields): Promise<ProviderTarget> {
    const region = need(str(fields.aws_region), 'configurations.aws_region');
    const roleArn = str(fields.aws_role_arn)!;
    const keys = {
      accessKeyId: need(str(fields.aws_access_key_id), 'configurations.aws_access_key_id (signs the AssumeRole call)'),
      secretAccessKey: need(str(fields.aws_secret_access_key), 'configurations.aws_secret_access_key'),
    };
    const key = `aws\n${roleArn}\n${str(fields.aws_external_id) ?? ''}\n${keys.accessKeyId}\n${digest(keys.secretAccessKey)}`;
    const assumed = await this.awsKeys.get(key, async () => {
      try {
        return await assumeAwsRole(
          {
            region,
            roleArn,
            externalId: str(fields.aws_external_id),
            sessionName: 'gw-bedrock',
            keys,
            endpoint: str(fields.aws_sts_endpoint),
            param: 'configurations.aws_sts_endpoint',
            code: 'provider_credential_refused',
          },
          this.aws,
        );
      } catch (error) {
        if (error instanceof ApiError) throw credentialUnavailable('AWS STS', error.message);
        throw credentialUnavailable('AWS STS', `AssumeRole failed: ${awsFailureReason(error)}`);
      }
    });
    return { ...target, bedrock: { ...target.bedrock, region, accessKeyId: assumed.accessKeyId, secretAccessKey: assumed.secretAccessKey, sessionToken: assumed.sessionToken } };
  }
}
