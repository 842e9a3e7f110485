import { randomBytes } from 'node:crypto';
import { oidc } from './oidc-client.js';
import { identityProviderOf } from './identity-provider-cache.js';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { sessionCookieOf } from '../../core/auth/session-cookie.js';
import { cookieIsSecure, sessionCookieHeader } from '../../core/auth/session-cookie.js';
import { SESSIONS_TOPIC } from '../../core/auth/topics.js';
import type { Call } from '../../core/call.js';
import { ApiError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.js';
import { effectiveSettings } from '../../store/repositories/organisations.js';
import type { SsoSettings } from '../../store/repositories/sso.js';
import type { User } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';
import { joinByInvitation } from '../users/join-by-invitation.js';
import { query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { SSO_CALLBACK_PATH } from './sso-settings.js';

type Claims = oidc.IDToken & Partial<oidc.UserInfoResponse>;

/** How long a browser has between leaving for the identity provider and coming back. */
const SIGN_IN_WINDOW_MS = 10 * 60_000;

/** Only a path on gw itself: a sign-in link must not become an open redirect. */
function safeReturnPath(returnTo: string | undefined): string {
  if (!returnTo) return '/';
  if (!returnTo.startsWith('/') || returnTo.startsWith('//') || returnTo.startsWith('/\\')) {
    throw new ValidationError('return_to must be a path on gw', 'return_to', 'invalid_return_to');
  }
  return returnTo;
}

async function enabledSettings(store: Store, organisationId: string): Promise<SsoSettings> {
  const settings = await store.sso.get(organisationId);
  if (!settings?.enabled) throw new NotFoundError('SSO for this organisation');
  return settings;
}

/** Redirects to the identity provider with a fresh state, nonce and PKCE verifier kept server-side. */
export const startSsoSignIn: Handler = async (c, call) => {
  const input = query<'startSsoSignIn'>(c);
  const { store, config, now } = call.services;
  const organisation = input.organisation ? await store.organisations.find(input.organisation) : await store.organisations.sole();
  if (!organisation) throw new NotFoundError('Organisation', input.organisation);
  const settings = await enabledSettings(store, organisation.id);
  const returnTo = safeReturnPath(input.return_to);
  const provider = await identityProviderOf(call.services, settings);

  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  await store.sso.saveLogin({
    state_hash: hashOpaqueToken(state),
    organisation_id: organisation.id,
    code_verifier: verifier,
    nonce,
    return_to: returnTo,
    expires_at: new Date(now() + SIGN_IN_WINDOW_MS).toISOString(),
  });
  const location = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: `${config.publicUrl}${SSO_CALLBACK_PATH}`,
    scope: 'openid email profile',
    response_type: 'code',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { status: 302, headers: { location: location.href, 'cache-control': 'no-store' } };
};

/**
 * The identity provider's redirect back: the code is exchanged (PKCE verifier, state and nonce
 * checked by openid-client), the user found or provisioned, a new session made and any session
 * the browser already had revoked (the cookie is rotated at every sign-in).
 */
export const finishSsoSignIn: Handler = async (c, call) => {
  const input = query<'finishSsoSignIn'>(c);
  const { store, config, now, bus } = call.services;
  const login = await store.sso.takeLogin(hashOpaqueToken(input.state), isoNow(call));
  if (!login) throw new UnauthorizedError('This sign-in is unknown or has expired: start again', 'invalid_sign_in_state');
  if (input.error) throw new UnauthorizedError(`The identity provider refused the sign-in: ${input.error_description ?? input.error}`, 'sso_refused');
  const settings = await enabledSettings(store, login.organisation_id);
  const provider = await identityProviderOf(call.services, settings);

  const callbackUrl = new URL(`${config.publicUrl}${SSO_CALLBACK_PATH}`);
  for (const [name, value] of Object.entries(input)) if (typeof value === 'string') callbackUrl.searchParams.set(name, value);
  let claims: Claims;
  try {
    const tokens = await oidc.authorizationCodeGrant(provider, callbackUrl, {
      pkceCodeVerifier: login.code_verifier,
      expectedState: input.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    // Many providers put profile and email claims only in the UserInfo answer, not in the ID token.
    const userInfo = idToken.email === undefined ? await oidc.fetchUserInfo(provider, tokens.access_token, idToken.sub) : {};
    claims = { ...userInfo, ...idToken };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new UnauthorizedError(`The sign-in could not be completed: ${(error as Error).message}`, 'sso_failed');
  }
  const user = await signedInUser(call, settings, claims);

  const token = newOpaqueToken(TOKEN_PREFIXES.session);
  const at = isoNow(call);
  const session = await store.sessions.create(
    {
      token_hash: hashOpaqueToken(token),
      organisation_id: user.organisation_id,
      user_id: user.id,
      csrf_token: randomBytes(24).toString('base64url'),
      ip_address: call.ip || null,
      user_agent: (call.req.headers['user-agent'] ?? '').slice(0, 512) || null,
      expires_at: new Date(now() + config.sessionTtlMs).toISOString(),
    },
    at,
  );
  const previous = sessionCookieOf(call.req.headers);
  const old = previous ? await store.sessions.findByTokenHash(hashOpaqueToken(previous)) : undefined;
  if (old && old.id !== session.id && (await store.sessions.revoke(old.id, at))) await bus.publish(SESSIONS_TOPIC, old.id);

  return {
    status: 302,
    headers: {
      location: login.return_to ?? '/',
      'set-cookie': sessionCookieHeader(token, config.sessionTtlMs, cookieIsSecure(config.publicUrl, call.req)),
      'cache-control': 'no-store',
    },
  };
};

function emailDomainAllowed(email: string, domains: string[]): boolean {
  if (domains.length === 0) return true;
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/**
 * The gw user behind the ID token: the one linked to its subject, else the one with its
 * (verified) email, else an invited user joining, else a new user, unless the organisation
 * sets disable_auto_provision_user (then only invited or SCIM-provisioned users get in).
 */
async function signedInUser(call: Call, settings: SsoSettings, claims: Claims): Promise<User> {
  const { store, config, now } = call.services;
  const organisationId = settings.organisation_id;
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
  if (!email || claims.email_verified === false) throw new ForbiddenError('The identity provider did not give a verified email', 'sso_email_missing');
  if (!emailDomainAllowed(email, settings.email_domains)) throw new ForbiddenError(`${email} is not in one of the organisation's email domains`, 'email_domain_not_allowed');
  const names = {
    first_name: typeof claims.given_name === 'string' ? claims.given_name : null,
    last_name: typeof claims.family_name === 'string' ? claims.family_name : null,
  };
  const at = isoNow(call);

  const user = (await store.users.findBySsoSubject(organisationId, claims.sub)) ?? (await store.users.findByEmail(organisationId, email));
  if (user?.status === 'active') {
    if (user.sso_subject !== claims.sub) await store.users.update(organisationId, user.id, { sso_subject: claims.sub }, at);
    return user;
  }
  if (user?.status === 'inactive') throw new ForbiddenError('This user has been deactivated', 'user_inactive');

  const invitation = await store.invitations.pendingFor(organisationId, email, at);
  if (invitation) return store.transaction((tx) => joinByInvitation(tx, invitation, { ...names, sso_subject: claims.sub }, now(), at));

  const organisation = await store.organisations.get(organisationId);
  const organisationSettings = organisation ? effectiveSettings(organisation, config.blockInlineConfig) : {};
  if (organisationSettings.disable_auto_provision_user === true) {
    throw new ForbiddenError(`${email} has no account here: ask an administrator for an invitation`, 'user_not_provisioned');
  }
  return store.transaction(async (tx) => {
    if (user) {
      // A removed user signing in again comes back with the default role.
      await tx.users.update(organisationId, user.id, { ...names, role: settings.default_role, status: 'active', sso_subject: claims.sub }, at);
      return (await tx.users.get(organisationId, user.id))!;
    }
    const created = await tx.users.create({ organisation_id: organisationId, email, role: settings.default_role, sso_subject: claims.sub, provisioned_by: 'sso', ...names }, at);
    const workspace = await tx.workspaces.getDefault(organisationId);
    if (workspace) await tx.workspaceMembers.add({ organisation_id: organisationId, workspace_id: workspace.id, user_id: created.id, role: 'member' }, at);
    return created;
  });
}
