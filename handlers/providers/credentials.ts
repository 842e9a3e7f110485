import { adapterFor } from '../../gateway/providers/index.js';
import { ValidationError } from '../../core/errors.js';
import type { SecretBox } from '../../store/secret-box.js';
import {
  openCredentials,
  openSecrets,
  restoreSecrets,
  sealSecrets,
  SECRET_FIELD_NAMES,
  splitSecrets,
  type CredentialDocument,
} from '../../store/secret-fields.js';

export type AuthType = 'apiKey' | 'oauthClientCredentials' | 'wif' | 'entraFederated' | 'workload';

/** What a create or update body says about credentials. */
export interface CredentialInput {
  ai_provider_id?: string;
  auth_type?: AuthType;
  key?: string;
  /** Providers only: written at the top level, kept in configurations (null removes it). */
  custom_host?: string | null;
  configurations?: Record<string, unknown>;
}

/** How credentials are stored: masked in clear, secrets sealed. */
export interface StoredCredentials {
  auth_type: string;
  masked_key: string | null;
  configurations: Record<string, unknown>;
  secrets: string | null;
}

const REQUIRED_BY_AUTH_TYPE: Partial<Record<AuthType, string[]>> = {
  oauthClientCredentials: ['oauth_token_endpoint', 'oauth_client_id', 'oauth_client_secret'],
  workload: ['azure_workload_client_id', 'azure_workload_tenant_id'],
};

/** Cross-field rules the spec cannot state for partial updates: what each auth type needs. */
function assertAuthFields(aiProvider: string, authType: AuthType, document: CredentialDocument, needsOwnCredential: boolean): void {
  // A provider on an integration is completed by the integration's fields, checked when that was saved.
  if (!needsOwnCredential) return;
  const configurations = document.configurations;
  for (const field of REQUIRED_BY_AUTH_TYPE[authType] ?? []) {
    if (configurations[field] === undefined) {
      throw new ValidationError(`configurations.${field} is required when auth_type is ${authType}`, `configurations.${field}`);
    }
  }
  if (authType !== 'apiKey') return;
  if (aiProvider === 'bedrock') {
    if (configurations.aws_region === undefined) throw new ValidationError('configurations.aws_region is required for bedrock', 'configurations.aws_region');
    const keyPair = configurations.aws_access_key_id !== undefined && configurations.aws_secret_access_key !== undefined;
    if (!keyPair && document.key === undefined) {
      throw new ValidationError('bedrock needs key or configurations.aws_access_key_id and aws_secret_access_key', 'configurations.aws_access_key_id');
    }
    return;
  }
  if (document.key === undefined) throw new ValidationError(`key is required when auth_type is apiKey`, 'key');
}

/**
 * Merges an update into the stored credentials and seals the result. Left-out secrets keep their
 * value (clients are only ever shown masks) unless the auth type changes; a mask sent back as is
 * means "unchanged". `needsOwnCredential` is false for a provider that uses an integration's key.
 */
export function sealCredentials(
  box: SecretBox,
  aiProvider: string,
  input: CredentialInput,
  previous: StoredCredentials | undefined,
  needsOwnCredential: boolean,
  /** Fields secret_mappings fill at request time (`key`, `configurations.x`): present for the checks. */
  mapped: ReadonlySet<string> = new Set(),
): StoredCredentials {
  const authType = (input.auth_type ?? previous?.auth_type ?? 'apiKey') as AuthType;
  const keepSecrets = previous !== undefined && previous.auth_type === authType;
  const old = previous ? openCredentials(box, previous) : { configurations: {} };
  const document: CredentialDocument = { configurations: withCustomHost(input, input.configurations ?? old.configurations) };
  if (input.configurations && keepSecrets) {
    for (const [field, value] of Object.entries(old.configurations)) {
      if (SECRET_FIELD_NAMES.has(field) && !(field in input.configurations)) document.configurations = { ...document.configurations, [field]: value };
    }
  }
  const key = input.key ?? (keepSecrets ? old.key : undefined);
  if (key !== undefined) document.key = key;
  const previousSecrets = keepSecrets && previous ? openSecrets(box, previous.secrets) : {};
  const { masked, secrets } = splitSecrets(document, previousSecrets);
  assertAuthFields(aiProvider, authType, withMappedFields(restoreSecrets(masked, secrets), mapped), needsOwnCredential);
  assertBatchMode(aiProvider, document.configurations);
  return { auth_type: authType, masked_key: masked.key ?? null, configurations: masked.configurations, secrets: sealSecrets(box, secrets) };
}

/** A top-level custom_host goes where gw reads it, configurations.custom_host; sent in both places, the two must agree. */
function withCustomHost(input: CredentialInput, configurations: Record<string, unknown>): Record<string, unknown> {
  if (input.custom_host === undefined) return configurations;
  const alsoInConfigurations = input.configurations?.custom_host;
  if (alsoInConfigurations !== undefined && alsoInConfigurations !== input.custom_host) {
    throw new ValidationError('custom_host and configurations.custom_host differ: send the custom host in one of them', 'custom_host', 'custom_host_conflict');
  }
  const { custom_host: _replaced, ...rest } = configurations;
  return input.custom_host === null ? rest : { ...rest, custom_host: input.custom_host };
}

/** Native batches need a provider whose batch API gw speaks (docs/files-and-batches.md). */
function assertBatchMode(aiProvider: string, configurations: Record<string, unknown>): void {
  if (configurations.batch_mode === 'native' && !adapterFor(aiProvider)?.buildBatchApiRequest) {
    throw new ValidationError(`${aiProvider} has no batch API gw can hand batches to; batch_mode native is for openai, azure-openai and groq`, 'configurations.batch_mode', 'native_batch_unsupported');
  }
}

/** A copy for the checks only, with a placeholder in each field a secret mapping fills. */
function withMappedFields(document: CredentialDocument, mapped: ReadonlySet<string>): CredentialDocument {
  if (mapped.size === 0) return document;
  const copy: CredentialDocument = { ...document, configurations: { ...document.configurations } };
  for (const field of mapped) {
    if (field === 'key') copy.key ??= 'mapped';
    else copy.configurations[field.replace(/^configurations\./, '')] ??= 'mapped';
  }
  return copy;
}
