/** The secret manager clients by manager_type, sharing one guarded outbound fetch. */
import { createGuardedFetch } from '../outbound/guarded-fetch.js';
import type { ResolveHost } from '../outbound/url-guard.js';
import { AwsSecretsManagerClient } from './aws-secrets-manager.js';
import { AzureKeyVaultClient } from './azure-key-vault.js';
import type { SecretManagers } from './secret-values.js';
import { VaultKvClient } from './vault-kv.js';

export interface ManagerOptions {
  trustedHosts: readonly string[];
  now: () => number;
  /** Tests only: the resolver the guard uses, so no test queries real DNS. */
  resolve?: ResolveHost;
  /** GW_MAX_UPSTREAM_ANSWER_BYTES. */
  maxAnswerBytes: number;
}

/** Per call to a manager or its token endpoint. */
const MANAGER_TIMEOUT_MS = 10_000;

export function createSecretManagers(options: ManagerOptions): SecretManagers {
  const outbound = {
    fetch: createGuardedFetch({ trustedHosts: options.trustedHosts, resolve: options.resolve, maxAnswerBytes: options.maxAnswerBytes, code: 'secret_manager_refused' }),
    trustedHosts: options.trustedHosts,
    now: options.now,
    timeoutMs: MANAGER_TIMEOUT_MS,
    resolve: options.resolve,
  };
  return Object.freeze({
    hashicorp_vault: new VaultKvClient(outbound),
    aws_sm: new AwsSecretsManagerClient(outbound),
    azure_kv: new AzureKeyVaultClient(outbound),
  });
}
