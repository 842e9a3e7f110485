/**
 * The invalidation topics of the credential caches (core/invalidation.ts): whoever changes a key,
 * user, session, grant or SCIM token publishes on its topic, and the authenticators that cache it
 * (server/auth/) listen.
 */
export const API_KEYS_TOPIC = 'api_keys';
/** Published as the id when any key may have changed (a data plane applied a snapshot): unknown secrets are forgotten too. */
export const ALL_API_KEYS = '*';
/** Published with a user id whenever a user's status, role or memberships change. */
export const USERS_TOPIC = 'users';
/** Published with a session id when it is revoked (sign-out, the user deactivated). */
export const SESSIONS_TOPIC = 'sessions';
/** Published with a grant (refresh-token family) id when its tokens are revoked. */
export const OAUTH_GRANTS_TOPIC = 'oauth_grants';
export const SCIM_TOKENS_TOPIC = 'scim_tokens';
