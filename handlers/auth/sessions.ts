import { clearedSessionCookieHeader, cookieIsSecure } from '../../core/auth/session-cookie.js';
import { SESSIONS_TOPIC } from '../../core/auth/topics.js';
import { USERS_TOPIC } from '../../core/auth/topics.js';
import { principalOf } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { pathId, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';

/** Sign-out ends the session on the server (every instance hears it) and clears the cookie. */
export const signOut: Handler = async (_c, call) => {
  const principal = principalOf(call);
  const { store, bus, config } = call.services;
  if (principal.credentialId && (await store.sessions.revoke(principal.credentialId, isoNow(call)))) await bus.publish(SESSIONS_TOPIC, principal.credentialId);
  return { body: { success: true }, headers: { 'set-cookie': clearedSessionCookieHeader(cookieIsSecure(config.publicUrl, call.req)) } };
};

export const revokeUserSessions: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { store, bus } = call.services;
  const user = await store.users.get(principal.organisationId, pathId(c));
  if (!user) throw new NotFoundError('User', pathId(c));
  const revoked = await store.sessions.revokeUser(user.id, isoNow(call));
  for (const id of revoked) await bus.publish(SESSIONS_TOPIC, id);
  await bus.publish(USERS_TOPIC, user.id);
  return { body: { success: true, revoked: revoked.length } };
};
