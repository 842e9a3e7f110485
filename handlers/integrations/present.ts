import type { components } from '../../generated/types.js';
import type { IntegrationRecord } from '../../store/repositories/integrations.js';

type Integration = components['schemas']['Integration'];

/** The public shape: secrets only as masks (stored masked; the sealed column never leaves). */
export function presentIntegration(record: IntegrationRecord, workspaceIds: string[]): Integration {
  return {
    id: record.id,
    object: 'integration',
    name: record.name,
    slug: record.slug,
    description: record.description,
    organisation_id: record.organisation_id,
    ai_provider_id: record.ai_provider_id,
    auth_type: record.auth_type as Integration['auth_type'],
    masked_key: record.masked_key,
    configurations: record.configurations,
    pricing_adjustments: record.pricing_adjustments,
    secret_mappings: record.secret_mappings,
    workspace_access: { all_workspaces: record.all_workspaces, workspace_ids: record.all_workspaces ? [] : workspaceIds },
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
