import { scimPatch, type ScimPatchOperation } from 'scim-patch';
import { announceRevokedAccess, revokeUserAccess } from '../users/revoke-access.js';
import { principalOf, type Call } from '../../core/call.js';
import { scimError } from '../../core/protocol-errors.js';
import { ScimFilterError } from '../../store/scim-filter.js';
import type { User } from '../../store/repositories/users.js';
import { pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { listPage, listResponse, scimBoolean, scimNotFound, scimUser, SCIM_CONTENT, type ScimUser } from './scim-resources.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The fields gw keeps from a SCIM User. */
interface UserFields {
  email: string;
  first_name: string | null;
  last_name: string | null;
  external_id: string | null;
  active: boolean;
}

function fieldsOf(resource: Record<string, unknown>): UserFields {
  const emails = Array.isArray(resource.emails) ? (resource.emails as Array<{ value?: unknown; primary?: unknown }>) : [];
  const primary = emails.find((email) => email.primary === true || email.primary === 'true') ?? emails[0];
  const userName = typeof resource.userName === 'string' ? resource.userName.trim() : '';
  // userName is the sign-in name; when it is not an email (some directories send a plain login), the primary email is.
  const email = (EMAIL.test(userName) ? userName : typeof primary?.value === 'string' ? primary.value : userName).toLowerCase();
  if (!userName) throw scimError(400, 'userName is required', 'invalidValue');
  if (!EMAIL.test(email)) throw scimError(400, 'userName or a primary email must be an email address', 'invalidValue');
  const name = (resource.name ?? {}) as { givenName?: unknown; familyName?: unknown };
  return {
    email,
    first_name: typeof name.givenName === 'string' ? name.givenName : null,
    last_name: typeof name.familyName === 'string' ? name.familyName : null,
    external_id: typeof resource.externalId === 'string' ? resource.externalId : null,
    active: resource.active === undefined ? true : scimBoolean(resource.active, 'active'),
  };
}

async function present(call: Call, user: User): Promise<ScimUser> {
  return scimUser(call, user, await call.services.store.scim.groupsOfUser(user.id));
}

async function scimVisibleUser(call: Call, id: string): Promise<User> {
  const organisationId = principalOf(call).organisationId;
  const user = /^[0-9a-f-]{36}$/i.test(id) ? await call.services.store.users.get(organisationId, id) : undefined;
  if (!user || user.status === 'removed') throw scimNotFound('User', id);
  return user;
}

/**
 * Writes a user's SCIM fields. Deactivation (active false) ends everything that acts for the user
 * (sessions, API keys, OAuth grants) in the same transaction.
 */
async function save(call: Call, user: User, fields: UserFields): Promise<User> {
  const { store, bus } = call.services;
  const at = isoNow(call);
  if (fields.email !== user.email) {
    const taken = await store.users.findByEmail(user.organisation_id, fields.email);
    if (taken && taken.id !== user.id) throw scimError(409, `${fields.email} is already a user`, 'uniqueness');
  }
  const status = fields.active ? 'active' : 'inactive';
  const revoked = await store.transaction(async (tx) => {
    await tx.users.update(user.organisation_id, user.id, { email: fields.email, first_name: fields.first_name, last_name: fields.last_name, external_id: fields.external_id, status }, at);
    return status === 'inactive' && user.status === 'active' ? revokeUserAccess(tx, user.organisation_id, user.id, at) : undefined;
  });
  if (revoked) await announceRevokedAccess(bus, user.id, revoked);
  else if (status !== user.status) await announceRevokedAccess(bus, user.id, { keyIds: [], sessionIds: [], grantIds: [] });
  return (await store.users.get(user.organisation_id, user.id))!;
}

export const listScimUsers: Handler = async (c, call) => {
  const page = listPage(query<'listScimUsers'>(c));
  let result;
  try {
    result = await call.services.store.scim.listUsers(principalOf(call).organisationId, page);
  } catch (error) {
    if (error instanceof ScimFilterError) throw scimError(400, error.message, 'invalidFilter');
    throw error;
  }
  const resources = await Promise.all(result.rows.map((user) => present(call, user)));
  return { body: listResponse(resources, result.total, page.startIndex), headers: SCIM_CONTENT };
};

export const getScimUser: Handler = async (c, call) => ({ body: await present(call, await scimVisibleUser(call, pathId(c))), headers: SCIM_CONTENT });

/** A new user (organisation role member). A user removed earlier with the same email comes back. */
export const createScimUser: Handler = async (c, call) => {
  const principal = principalOf(call);
  const fields = fieldsOf(c.request.requestBody as Record<string, unknown>);
  const { store } = call.services;
  const existing = await store.users.findByEmail(principal.organisationId, fields.email);
  if (existing && existing.status !== 'removed') throw scimError(409, `${fields.email} is already a user`, 'uniqueness');
  let user: User;
  if (existing) {
    user = await save(call, existing, fields);
  } else {
    user = await store.users.create(
      {
        organisation_id: principal.organisationId,
        email: fields.email,
        first_name: fields.first_name,
        last_name: fields.last_name,
        external_id: fields.external_id,
        role: 'member',
        provisioned_by: 'scim',
      },
      isoNow(call),
    );
    if (!fields.active) user = await save(call, user, fields);
  }
  const body = await present(call, user);
  return { status: 201, body, headers: { ...SCIM_CONTENT, location: body.meta.location } };
};

export const replaceScimUser: Handler = async (c, call) => {
  const user = await scimVisibleUser(call, pathId(c));
  return { body: await present(call, await save(call, user, fieldsOf(c.request.requestBody as Record<string, unknown>))), headers: SCIM_CONTENT };
};

/**
 * PATCH as identity providers send it: Okta's path-less `replace` with a value object, Azure's
 * capitalised ops, `"False"` strings and value paths such as `emails[type eq "work"].value`.
 * scim-patch applies the operations to the user's SCIM form; gw keeps the fields it stores.
 */
export const patchScimUser: Handler = async (c, call) => {
  const user = await scimVisibleUser(call, pathId(c));
  const resource = await present(call, user);
  const patched = applyPatch(resource, (c.request.requestBody as { Operations: ScimPatchOperation[] }).Operations);
  return { body: await present(call, await save(call, user, fieldsOf(patched))), headers: SCIM_CONTENT };
};

export function applyPatch<T extends object>(resource: T, operations: ScimPatchOperation[]): Record<string, unknown> {
  const normalised = operations.map((operation) => ({ ...operation, op: operation.op.toLowerCase() }) as ScimPatchOperation);
  try {
    return scimPatch({ ...structuredClone(resource), meta: { created: new Date(), lastModified: new Date() } } as never, normalised, { treatMissingAsAdd: true }) as Record<string, unknown>;
  } catch (error) {
    const scimType = (error as { scimType?: string }).scimType;
    throw scimError(400, (error as Error).message, (scimType as 'invalidPath' | undefined) ?? 'invalidValue');
  }
}

/** Deletion removes the user: memberships end, and so do sessions, keys and OAuth grants. */
export const deleteScimUser: Handler = async (c, call) => {
  const user = await scimVisibleUser(call, pathId(c));
  const { store, bus } = call.services;
  const at = isoNow(call);
  const revoked = await store.transaction(async (tx) => {
    await tx.users.update(user.organisation_id, user.id, { status: 'removed' }, at);
    await tx.workspaceMembers.removeUser(user.id);
    for (const group of await tx.scim.groupsOfUser(user.id)) await tx.scim.removeMembers(group.id, [user.id]);
    return revokeUserAccess(tx, user.organisation_id, user.id, at);
  });
  await announceRevokedAccess(bus, user.id, revoked);
  return { status: 204 };
};
