import { announceRevokedAccess, revokeUserAccess } from './revoke-access.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { User } from '../../store/repositories/users.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { recheckKeysOf } from './key-recheck.js';
import { presentUser } from './present.js';

export * from './invites.js';

/** An active or deactivated (SCIM active false) user; removed users are gone from this API. */
async function listedUser(call: Call, id: string): Promise<User> {
  const user = await call.services.store.users.get(principalOf(call).organisationId, id);
  if (!user || user.status === 'removed') throw new NotFoundError('User', id);
  return user;
}

/** The organisation must keep at least one active owner. */
async function assertNotLastOwner(call: Call, user: User): Promise<void> {
  if (user.role === 'owner' && user.status === 'active' && (await call.services.store.users.countOwners(user.organisation_id)) <= 1) {
    throw new ConflictError('The organisation needs at least one owner', 'last_owner');
  }
}

export const listUsers: Handler = async (c, call) => {
  const { store } = call.services;
  const page = await store.users.list(principalOf(call).organisationId, query<'listUsers'>(c));
  return { body: { ...page, data: await Promise.all(page.data.map((user) => presentUser(store, user))) } };
};

export const getUser: Handler = async (c, call) => ({ body: await presentUser(call.services.store, await listedUser(call, pathId(c))) });

export const updateUser: Handler = async (c, call) => {
  const principal = principalOf(call);
  const user = await listedUser(call, pathId(c));
  const input = body<'updateUser'>(c);
  const { store } = call.services;
  if (input.role !== undefined && input.role !== user.role) {
    // Owners are made and unmade by owners only.
    const caller = principal.userId ? await store.users.get(principal.organisationId, principal.userId) : undefined;
    if ((input.role === 'owner' || user.role === 'owner') && caller?.role !== 'owner') {
      throw new ForbiddenError('Only an owner can grant or take the owner role', 'owner_only');
    }
    await assertNotLastOwner(call, user);
  }
  await store.users.update(principal.organisationId, user.id, input, isoNow(call));
  if (input.role !== undefined && input.role !== user.role) await recheckKeysOf(call, user);
  return { body: await presentUser(store, (await store.users.get(principal.organisationId, user.id))!) };
};

/** Removing a user ends their memberships and revokes every key, session and OAuth grant that acts for them. */
export const removeUser: Handler = async (c, call) => {
  const principal = principalOf(call);
  const user = await listedUser(call, pathId(c));
  await assertNotLastOwner(call, user);
  const { store, bus } = call.services;
  const now = isoNow(call);
  const revoked = await store.transaction(async (tx) => {
    await tx.users.update(principal.organisationId, user.id, { status: 'removed' }, now);
    await tx.workspaceMembers.removeUser(user.id);
    return revokeUserAccess(tx, principal.organisationId, user.id, now);
  });
  await announceRevokedAccess(bus, user.id, revoked);
  return { body: { id: user.id, object: 'user', deleted: true } };
};
