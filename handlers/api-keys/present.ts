import type { components } from '../../generated/types.js';
import type { ApiKeyRecord } from '../../store/repositories/api-keys.js';
import { presentAttachedLimits } from '../policies/attached-limits.js';

type ApiKey = components['schemas']['ApiKey'];

/** The public shape of a key: never its hash, never its secret. */
export function presentApiKey(record: ApiKeyRecord, now: number): ApiKey {
  const expired = record.status === 'active' && record.expires_at !== null && Date.parse(record.expires_at) <= now;
  return {
    id: record.id,
    object: 'api_key',
    name: record.name,
    description: record.description,
    type: record.type,
    sub_type: record.sub_type,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    user_id: record.user_id,
    scopes: record.scopes as ApiKey['scopes'],
    status: expired ? 'expired' : record.status,
    masked_key: record.masked_key,
    expires_at: record.expires_at,
    rotation_period: record.rotation_period,
    rotation_period_days: record.rotation_period_days,
    next_rotation_at: record.next_rotation_at,
    last_rotated_at: record.last_rotated_at,
    ...presentAttachedLimits(record),
    allowed_models: record.allowed_models,
    created_by: record.created_by,
    auto_created: record.auto_created,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
