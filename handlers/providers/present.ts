import type { components } from '../../generated/types.js';
import type { IntegrationRecord } from '../../store/repositories/integrations.js';
import type { ProviderRecord } from '../../store/repositories/providers.js';
import { presentAttachedLimits } from '../policies/attached-limits.js';

type Provider = components['schemas']['Provider'];

/**
 * The public shape. With `effective` (include_configurations for system authentication) it adds
 * the configurations the gateway would use: the integration's overlaid by the provider's own,
 * still masked (both are stored masked; the sealed columns never leave the store).
 */
export function presentProvider(record: ProviderRecord, effective?: { integration: IntegrationRecord | undefined }): Provider {
  const provider: Provider = {
    id: record.id,
    object: 'provider',
    name: record.name,
    slug: record.slug,
    note: record.note,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    integration_id: record.integration_id,
    ai_provider_id: record.ai_provider_id,
    auth_type: record.auth_type as Provider['auth_type'],
    masked_key: record.masked_key ?? effective?.integration?.masked_key ?? null,
    custom_host: typeof record.configurations.custom_host === 'string' ? record.configurations.custom_host : null,
    ...presentAttachedLimits(record),
    secret_mappings: record.secret_mappings,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  if (effective) provider.configurations = { ...effective.integration?.configurations, ...record.configurations };
  return provider;
}
