import type { components } from '../../generated/types.js';
import type { SecretReferenceRecord } from '../../store/repositories/secret-references.js';

type SecretReference = components['schemas']['SecretReference'];

/** The public shape: auth_config as stored (secrets masked); the sealed column never leaves. */
export function presentSecretReference(record: SecretReferenceRecord, workspaceIds: string[]): SecretReference {
  return {
    id: record.id,
    object: 'secret-reference',
    organisation_id: record.organisation_id,
    name: record.name,
    slug: record.slug,
    description: record.description,
    manager_type: record.manager_type,
    auth_config: record.auth_config,
    secret_path: record.secret_path,
    secret_key: record.secret_key,
    allow_all_workspaces: record.allow_all_workspaces,
    allowed_workspaces: record.allow_all_workspaces ? [] : workspaceIds,
    tags: record.tags,
    status: record.status,
    created_by: record.created_by,
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}
