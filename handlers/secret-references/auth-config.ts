/**
 * A secret reference's auth_config: which fields each manager needs (the cross-field rules the
 * spec cannot state for merged updates), its manager URLs checked by the outbound address guard
 * (names resolved, at save as at every connection), and its secret
 * fields sealed, with masks in the stored and answered copy.
 */
import type { OutboundGuard } from '../../gateway/outbound/outbound-guard.js';
import { ValidationError } from '../../core/errors.js';
import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets, sealSecrets, splitSecrets } from '../../store/secret-fields.js';
import type { ManagerType } from '../../store/repositories/secret-references.js';

const SECRET_AUTH_FIELDS = new Set(['vault_token', 'vault_secret_id', 'aws_secret_access_key', 'aws_session_token', 'azure_entra_client_secret']);

const URL_FIELDS = ['vault_addr', 'aws_endpoint', 'aws_sts_endpoint', 'azure_vault_url', 'azure_authority_host'];

const FIELD_PREFIX: Record<ManagerType, string> = { hashicorp_vault: 'vault_', aws_sm: 'aws_', azure_kv: 'azure_' };

type AuthConfig = Record<string, unknown>;

function need(config: AuthConfig, ...fields: string[]): void {
  for (const field of fields) {
    if (config[field] === undefined) throw new ValidationError(`auth_config.${field} is required`, `auth_config.${field}`);
  }
}

function assertManagerFields(managerType: ManagerType, config: AuthConfig): void {
  for (const field of Object.keys(config)) {
    if (!field.startsWith(FIELD_PREFIX[managerType])) {
      throw new ValidationError(`auth_config.${field} does not apply to manager_type ${managerType}`, `auth_config.${field}`);
    }
  }
  if (managerType === 'hashicorp_vault') {
    need(config, 'vault_addr');
    if (config.vault_token === undefined) need(config, 'vault_role_id', 'vault_secret_id');
  } else if (managerType === 'aws_sm') {
    // Access keys sign the calls, or sign the STS AssumeRole for aws_role_arn.
    need(config, 'aws_region', 'aws_access_key_id', 'aws_secret_access_key');
  } else {
    need(config, 'azure_vault_url', 'azure_entra_tenant_id', 'azure_entra_client_id', 'azure_entra_client_secret');
  }
}

async function assertSafeUrls(config: AuthConfig, guard: OutboundGuard): Promise<void> {
  for (const field of URL_FIELDS) {
    const value = config[field];
    if (typeof value === 'string') await guard.vet(value, { param: `auth_config.${field}`, code: 'secret_manager_refused' });
  }
}

export interface SealedAuthConfig {
  auth_config: AuthConfig;
  secrets: string | null;
}

/**
 * Merges `input` over the previous auth_config (fields left out, or sent back as their mask, keep
 * their value), checks the result and seals it.
 */
export async function sealAuthConfig(
  box: SecretBox,
  managerType: ManagerType,
  input: AuthConfig | undefined,
  previous: SealedAuthConfig | undefined,
  guard: OutboundGuard,
): Promise<SealedAuthConfig> {
  const previousSecrets = previous ? openSecrets(box, previous.secrets) : {};
  const old = previous ? restoreSecrets(previous.auth_config, previousSecrets) : {};
  const merged = { ...old, ...input };
  // A mask sent back means "unchanged": splitSecrets puts the old value back.
  const { masked, secrets } = splitSecrets(merged, previousSecrets, (key) => SECRET_AUTH_FIELDS.has(key));
  const clear = restoreSecrets(masked, secrets);
  assertManagerFields(managerType, clear);
  await assertSafeUrls(clear, guard);
  return { auth_config: masked, secrets: sealSecrets(box, secrets) };
}
