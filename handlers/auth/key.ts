import type { components } from '../../generated/types.js';
import { principalOf } from '../../core/call.js';
import { UnauthorizedError } from '../../core/errors.js';
import { presentApiKey } from '../api-keys/present.js';
import type { Handler } from '../types.js';

type AuthKeyBody = components['schemas']['AuthKey'];

/**
 * The key the caller presented: what a console signed in with a key shows and hides. The scopes
 * are the principal's (the key's, bounded by its user's current roles), not only the stored ones.
 */
export const getAuthKey: Handler = async (_c, call) => {
  const principal = principalOf(call);
  const record = principal.credential === 'api_key' && principal.keyId ? await call.services.store.apiKeys.get(principal.organisationId, principal.keyId) : undefined;
  if (!record) throw new UnauthorizedError('GET /v1/auth/key needs a gw API key; for a console session or a JWT, GET /v1/auth/self', 'api_key_required');
  const self: AuthKeyBody = {
    object: 'auth_key',
    api_key: presentApiKey(record, call.services.now()),
    scopes: [...principal.scopes].sort(),
    workspace_id: principal.gatewayWorkspaceId,
  };
  return { body: self, headers: { 'cache-control': 'no-store' } };
};
