import type { Store } from '../../store/store.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { OAUTH_GRANTS_TOPIC } from '../../core/auth/topics.js';
import { USERS_TOPIC } from '../../core/auth/topics.js';
import { SESSIONS_TOPIC } from '../../core/auth/topics.js';

export interface RevokedAccess {
  keyIds: string[];
  sessionIds: string[];
  grantIds: string[];
}

/** Ends everything that acts for a user (API keys, sessions, OAuth grants); run inside the transaction that deactivates or removes them. */
export async function revokeUserAccess(store: Store, organisationId: string, userId: string, now: string): Promise<RevokedAccess> {
  return {
    keyIds: await store.apiKeys.revokeWhere(organisationId, { user_id: userId }, now),
    sessionIds: await store.sessions.revokeUser(userId, now),
    grantIds: await store.oauth.revokeUser(userId, now),
  };
}

/** After the transaction commits: every instance drops what it cached for that user. */
export async function announceRevokedAccess(bus: InvalidationBus, userId: string, revoked: RevokedAccess): Promise<void> {
  await bus.publish(USERS_TOPIC, userId);
  for (const id of revoked.keyIds) await bus.publish(API_KEYS_TOPIC, id);
  for (const id of revoked.sessionIds) await bus.publish(SESSIONS_TOPIC, id);
  for (const id of revoked.grantIds) await bus.publish(OAUTH_GRANTS_TOPIC, id);
}
