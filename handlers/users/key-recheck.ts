import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { USERS_TOPIC } from '../../core/auth/topics.js';
import type { Call } from '../../core/call.js';
import type { User } from '../../store/repositories/users.js';

/** A user's keys, tokens and sessions are bounded by the user's roles (core/auth/roles.ts): after a role change every instance re-reads them. */
export async function recheckKeysOf(call: Call, user: Pick<User, 'id' | 'organisation_id'>): Promise<void> {
  const { store, bus } = call.services;
  await bus.publish(USERS_TOPIC, user.id);
  for (const keyId of await store.apiKeys.activeIdsOfUser(user.organisation_id, user.id)) await bus.publish(API_KEYS_TOPIC, keyId);
}
