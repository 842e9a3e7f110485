import type { components } from '../../generated/types.js';
import { sessionCookieOf } from '../../core/auth/session-cookie.js';
import { principalOf } from '../../core/call.js';
import { UnauthorizedError } from '../../core/errors.js';
import type { Handler } from '../types.js';

type SelfBody = components['schemas']['AuthSelf'];

/** Who is calling, for a person's credential; an API key (or a SCIM token) is not a person's sign-in. */
export const getAuthSelf: Handler = async (_c, call) => {
  const principal = principalOf(call);
  const credential = principal.credential;
  if (credential !== 'session' && credential !== 'jwt' && credential !== 'oauth') {
    throw new UnauthorizedError('GET /v1/auth/self needs a console session, a JWT or an OAuth access token; an API key alone is not enough', 'session_or_jwt_required');
  }
  const { store, credentials } = call.services;
  const organisation = (await store.organisations.get(principal.organisationId))!;
  const user = principal.userId ? await store.users.get(principal.organisationId, principal.userId) : undefined;
  const role = principal.role ?? { organisation: 'member' as const, workspace: null };

  const memberships = user ? await store.workspaceMembers.forUser(user.id) : [];
  const roles = new Map<string, SelfBody['workspaces'][number]['role']>(memberships.map((m) => [m.workspace_id, m.role]));
  if (principal.workspaceId && !roles.has(principal.workspaceId)) roles.set(principal.workspaceId, role.workspace);
  const workspaces: SelfBody['workspaces'] = [];
  for (const [id, workspaceRole] of roles) {
    const workspace = await store.workspaces.get(principal.organisationId, id);
    if (workspace) workspaces.push({ id, slug: workspace.slug, name: workspace.name, role: workspaceRole });
  }

  const self: SelfBody = {
    object: 'auth_self',
    credential,
    user: {
      id: user?.id ?? null,
      email: user?.email ?? null,
      subject: principal.subject,
      first_name: user?.first_name ?? null,
      last_name: user?.last_name ?? null,
    },
    organisation: { id: organisation.id, name: organisation.name, slug: organisation.slug },
    role,
    workspace_id: principal.workspaceId,
    workspaces,
    scopes: [...principal.scopes].sort(),
    expires_at: principal.validUntil === null ? null : new Date(principal.validUntil).toISOString(),
  };
  if (credential === 'session') {
    const token = sessionCookieOf(call.req.headers);
    const csrf = token ? await credentials.sessions.csrfTokenOf(token) : undefined;
    if (csrf) self.csrf_token = csrf;
  }
  return { body: self, headers: { 'cache-control': 'no-store' } };
};
