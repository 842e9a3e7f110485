import { actorOf } from '../../core/auth/principal.js';
import { createHash, randomBytes } from 'node:crypto';
import type { components } from '../../generated/types.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import { effectiveSettings } from '../../store/repositories/organisations.js';
import type { Invitation } from '../../store/repositories/invitations.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { joinByInvitation } from './join-by-invitation.js';
import { presentUser } from './present.js';

type InviteBody = components['schemas']['Invite'];
const DAY_MS = 86_400_000;

function newToken(): { token: string; hash: string } {
  const token = `gwinv-${randomBytes(24).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function statusOf(invitation: Invitation, now: number): InviteBody['status'] {
  return invitation.status === 'pending' && Date.parse(invitation.expires_at) <= now ? 'expired' : invitation.status;
}

function presentInvite(invitation: Invitation, now: number): InviteBody {
  return {
    id: invitation.id,
    object: 'invite',
    email: invitation.email,
    role: invitation.role,
    workspaces: invitation.workspaces,
    status: statusOf(invitation, now),
    expires_at: invitation.expires_at,
    accepted_at: invitation.accepted_at,
    created_by: invitation.created_by,
    created_at: invitation.created_at,
    updated_at: invitation.updated_at,
  };
}

/** When the organisation lists email domains, invitees must belong to one (or a subdomain where allowed). */
function assertAllowedDomain(email: string, domains: Array<{ domain: string; allow_subdomains?: boolean }>): void {
  if (!domains.length) return;
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const allowed = domains.some(({ domain, allow_subdomains }) => {
    const d = domain.toLowerCase();
    return host === d || (allow_subdomains === true && host.endsWith(`.${d}`));
  });
  if (!allowed) throw new ValidationError(`${host} is not one of the organisation's email domains`, 'email', 'email_domain_not_allowed');
}

async function visibleInvite(call: Call, id: string): Promise<Invitation> {
  const invitation = await call.services.store.invitations.get(principalOf(call).organisationId, id);
  if (!invitation) throw new NotFoundError('Invite', id);
  return invitation;
}

export const createInvite: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createInvite'>(c);
  const { store, now, config } = call.services;
  const organisation = (await store.organisations.get(principal.organisationId))!;
  const settings = effectiveSettings(organisation, config.blockInlineConfig);
  assertAllowedDomain(input.email, settings.email_domains as Array<{ domain: string; allow_subdomains?: boolean }>);
  const existing = await store.users.findByEmail(principal.organisationId, input.email);
  if (existing?.status === 'active') throw new ConflictError(`${input.email} is already a user`, 'user_exists', 'email');
  const workspaces = [];
  for (const [index, entry] of (input.workspaces ?? []).entries()) {
    const workspace = await store.workspaces.find(principal.organisationId, entry.workspace_id);
    if (!workspace) throw new ValidationError(`No workspace ${entry.workspace_id}`, `workspaces[${index}].workspace_id`, 'unknown_workspace');
    workspaces.push({ workspace_id: workspace.id, role: entry.role });
  }
  const { token, hash } = newToken();
  const invitation = await store.invitations.create(
    {
      organisation_id: principal.organisationId,
      email: input.email,
      role: input.role,
      workspaces,
      token_hash: hash,
      expires_at: new Date(now() + (input.expires_in_days ?? 7) * DAY_MS).toISOString(),
      created_by: actorOf(principal),
    },
    isoNow(call),
  );
  return { status: 201, body: { ...presentInvite(invitation, now()), token } };
};

export const listInvites: Handler = async (c, call) => {
  const page = await call.services.store.invitations.list(principalOf(call).organisationId, query<'listInvites'>(c));
  const now = call.services.now();
  return { body: { ...page, data: page.data.map((invitation) => presentInvite(invitation, now)) } };
};

export const getInvite: Handler = async (c, call) => ({ body: presentInvite(await visibleInvite(call, pathId(c)), call.services.now()) });

export const deleteInvite: Handler = async (c, call) => {
  const invitation = await visibleInvite(call, pathId(c));
  if (invitation.status === 'accepted') throw new ConflictError('An accepted invite cannot be cancelled', 'invite_accepted');
  await call.services.store.invitations.update(invitation.id, { status: 'cancelled' }, isoNow(call));
  return { body: { id: invitation.id, object: 'invite', deleted: true } };
};

/** A new token and a new expiry; the old token stops working. */
export const resendInvite: Handler = async (c, call) => {
  const invitation = await visibleInvite(call, pathId(c));
  if (invitation.status !== 'pending') throw new ConflictError(`The invite is ${invitation.status}`, 'invite_not_pending');
  const { store, now } = call.services;
  const { token, hash } = newToken();
  const days = body<'resendInvite'>(c).expires_in_days ?? 7;
  await store.invitations.update(invitation.id, { token_hash: hash, expires_at: new Date(now() + days * DAY_MS).toISOString() }, isoNow(call));
  const updated = (await store.invitations.get(invitation.organisation_id, invitation.id))!;
  return { body: { ...presentInvite(updated, now()), token } };
};

/** The token is the credential here: whoever holds a live one becomes the invited user. */
export const acceptInvite: Handler = async (c, call) => {
  const input = body<'acceptInvite'>(c);
  const { store, now } = call.services;
  const invitation = await store.invitations.findByTokenHash(hashToken(input.token));
  if (!invitation) throw new NotFoundError('Invite');
  const status = statusOf(invitation, now());
  if (status !== 'pending') throw new ConflictError(`The invite is ${status}`, `invite_${status}`);
  const at = isoNow(call);
  const names = { first_name: input.first_name ?? null, last_name: input.last_name ?? null };
  const user = await store.transaction((tx) => joinByInvitation(tx, invitation, names, now(), at));
  return { status: 201, body: await presentUser(store, user) };
};

