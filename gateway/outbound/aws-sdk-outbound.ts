/**
 * Outbound calls through the AWS SDK (Secrets Manager, STS): the endpoint passes the outbound
 * address guard, and unless its host is trusted the SDK's sockets resolve names through the
 * guarded lookup, so DNS cannot swap in a private address. Also STS AssumeRole, shared by secret
 * references and Bedrock providers that name a role.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { createGuardedLookup } from './pinned-lookup.js';
import { vetOutboundUrl, type ResolveHost } from './url-guard.js';

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsOutbound {
  trustedHosts: readonly string[];
  resolve?: ResolveHost;
  timeoutMs: number;
}

/** The SDK's requestHandler options for one endpoint; throws the guard's error when it is refused. */
export async function guardedAwsHandler(endpoint: string, param: string, code: string, outbound: AwsOutbound) {
  const vetted = await vetOutboundUrl(endpoint, { trustedHosts: outbound.trustedHosts, resolveNames: false, param, code });
  if (vetted.trusted) return { requestTimeout: outbound.timeoutMs };
  const lookup = createGuardedLookup(outbound.resolve);
  return { requestTimeout: outbound.timeoutMs, httpAgent: new HttpAgent({ keepAlive: true, lookup }), httpsAgent: new HttpsAgent({ keepAlive: true, lookup }) };
}

export interface AssumeRoleInput {
  region: string;
  roleArn: string;
  externalId?: string;
  sessionName: string;
  /** The keys that sign the AssumeRole call. */
  keys: AwsKeys;
  /** Replaces https://sts.<region>.amazonaws.com. */
  endpoint?: string;
  param: string;
  code: string;
}

/** STS AssumeRole: the role's temporary keys and when they expire (epoch ms). */
export async function assumeAwsRole(input: AssumeRoleInput, outbound: AwsOutbound): Promise<{ value: AwsKeys; expiresAt: number | undefined }> {
  const endpoint = input.endpoint ?? `https://sts.${input.region}.amazonaws.com`;
  const sts = new STSClient({
    region: input.region,
    endpoint,
    maxAttempts: 1,
    credentials: input.keys,
    requestHandler: await guardedAwsHandler(endpoint, input.param, input.code, outbound),
  });
  try {
    const answer = await sts.send(new AssumeRoleCommand({ RoleArn: input.roleArn, RoleSessionName: input.sessionName, ExternalId: input.externalId }), {
      abortSignal: AbortSignal.timeout(outbound.timeoutMs),
    });
    const c = answer.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('STS AssumeRole answered no credentials');
    return { value: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken }, expiresAt: c.Expiration?.getTime() };
  } finally {
    sts.destroy();
  }
}

/** Why an SDK call failed, without its message (which could quote request data). */
export function awsFailureReason(error: unknown): string {
  const failed = error as { name?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const status = failed.$metadata?.httpStatusCode;
  return `${failed.name ?? failed.code ?? 'error'}${status ? ` (HTTP ${status})` : ''}`;
}
