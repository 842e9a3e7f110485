import { actorOf } from '../../core/auth/principal.js';
import type { Context } from 'openapi-backend';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../../core/auth/api-key-secret.js';
import type { Principal } from '../../core/auth/principal.js';
import { principalOf, requireScope, type Call } from '../../core/call.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../store/repositories/api-keys.js';
import type { ApiKeySubType, ApiKeyType } from '../../core/auth/principal.js';
import { body, pathId, query, type Handler } from '../types.js';
import { presentApiKey } from './present.js';
import { assertCreatorMayGrant, assertUserKeyWithinRole } from './role-ceiling.js';
import { enforcedUserKeyRotation } from './rotation-policy.js';
import { nextRotationAt, rotationDays, type RotationInput } from './rotation.js';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { attachedLimitsInput } from '../policies/attached-limits.js';
import { assertModelsGrantable } from '../../core/auth/allowed-models.js';
import { expiryAfterRotation, expiryUnderPolicy } from './expiry-policy.js';

interface NewKeyInput extends RotationInput, AttachedLimits {
  name: string;
  description?: string;
  scopes: string[];
  expires_at?: string;
  workspace_id?: string;
  user_id?: string;
  allowed_models?: string[] | null;
}

/** A key may hand out only scopes it holds itself. */
function assertGrantable(principal: Principal, scopes: string[]): void {
  const above = scopes.filter((scope) => !principal.scopes.has(scope));
  if (above.length) {
    throw new ForbiddenError(`Cannot grant scopes this key does not hold: ${above.join(', ')}`, 'scope_escalation');
  }
}

function assertFuture(expiresAt: string | null | undefined, now: number): void {
  if (expiresAt && Date.parse(expiresAt) <= now) throw new ValidationError('expires_at must be in the future', 'expires_at');
}

async function resolveWorkspace(call: Call, principal: Principal, idOrSlug: string) {
  const workspace = await call.services.store.workspaces.find(principal.organisationId, idOrSlug);
  if (!workspace) throw new NotFoundError('Workspace', idOrSlug);
  if (principal.workspaceId !== null && principal.workspaceId !== workspace.id) {
    throw new ForbiddenError('A workspace key can manage keys of its own workspace only');
  }
  return workspace;
}

async function createKey(call: Call, type: ApiKeyType, subType: ApiKeySubType, input: NewKeyInput) {
  const principal = principalOf(call);
  const { store, now } = call.services;
  assertGrantable(principal, input.scopes);
  assertModelsGrantable(principal, input.allowed_models, true);
  assertFuture(input.expires_at, now());
  let days = rotationDays(input);
  let workspaceId: string | null = null;
  let userId: string | null = null;
  if (type === 'organisation') {
    if (principal.workspaceId !== null) throw new ForbiddenError('Only an organisation (admin) key can create admin keys');
  } else {
    workspaceId = (await resolveWorkspace(call, principal, input.workspace_id!)).id;
  }
  await assertCreatorMayGrant(store, principal, type, workspaceId, input.scopes);
  if (subType === 'user') {
    userId = input.user_id ?? principal.userId;
    if (!userId) throw new ValidationError('user_id is required: this key acts for no user', 'user_id');
    if (!(await store.users.get(principal.organisationId, userId))) throw new NotFoundError('User', userId);
    await assertUserKeyWithinRole(store, principal.organisationId, userId, workspaceId!, input.scopes);
    days = await enforcedUserKeyRotation(store, principal.organisationId, days);
  }
  const security = await call.services.savedResources.securitySettings(principal.organisationId, workspaceId);
  const expiresAt = expiryUnderPolicy(security, input.expires_at, now(), true) ?? null;
  const secret = generateApiKeySecret();
  const record = await store.apiKeys.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      user_id: userId,
      type,
      sub_type: subType,
      name: input.name,
      description: input.description ?? null,
      scopes: input.scopes,
      key_hash: hashApiKeySecret(secret),
      masked_key: maskApiKeySecret(secret),
      expires_at: expiresAt,
      // An enforced cadence is stored in days even when the request named it weekly/monthly.
      rotation_period: input.rotation_period ?? null,
      rotation_period_days: input.rotation_period ? null : days,
      next_rotation_at: nextRotationAt(days, now()),
      created_by: actorOf(principal),
      allowed_models: input.allowed_models ?? null,
      ...attachedLimitsInput(input),
    },
    new Date(now()).toISOString(),
  );
  return { status: 201, body: { ...presentApiKey(record, now()), key: secret } };
}

/** A key the caller may see: its organisation's, and for workspace keys only their workspace's. */
async function visibleKey(call: Call, id: string): Promise<ApiKeyRecord> {
  const principal = principalOf(call);
  const record = await call.services.store.apiKeys.get(principal.organisationId, id);
  if (!record || (principal.workspaceId !== null && record.workspace_id !== principal.workspaceId)) {
    throw new NotFoundError('API key', id);
  }
  return record;
}

export const createOrganisationServiceApiKey: Handler = async (c, call) =>
  createKey(call, 'organisation', 'service', body<'createOrganisationServiceApiKey'>(c) as NewKeyInput);

export const createWorkspaceServiceApiKey: Handler = async (c, call) =>
  createKey(call, 'workspace', 'service', body<'createWorkspaceServiceApiKey'>(c) as NewKeyInput);

export const createWorkspaceUserApiKey: Handler = async (c, call) =>
  createKey(call, 'workspace', 'user', body<'createWorkspaceUserApiKey'>(c) as NewKeyInput);

export const listApiKeys: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listApiKeys'>(c);
  let workspaceId = principal.workspaceId ?? undefined;
  if (q.workspace_id) workspaceId = (await resolveWorkspace(call, principal, q.workspace_id)).id;
  const page = await call.services.store.apiKeys.list(principal.organisationId, { workspace_id: workspaceId }, q);
  const now = call.services.now();
  return { body: { ...page, data: page.data.map((record) => presentApiKey(record, now)) } };
};

export const getApiKey: Handler = async (c, call) => ({ body: presentApiKey(await visibleKey(call, pathId(c)), call.services.now()) });

export const batchGetApiKeys: Handler = async (c, call) => {
  const principal = principalOf(call);
  const ids = [...new Set(String(query<'batchGetApiKeys'>(c).ids).split(','))];
  const records = (await call.services.store.apiKeys.getMany(principal.organisationId, ids)).filter(
    (record) => principal.workspaceId === null || record.workspace_id === principal.workspaceId,
  );
  const now = call.services.now();
  return { body: { object: 'list', data: records.map((r) => presentApiKey(r, now)), has_more: false, next_cursor: null } };
};

export const updateApiKey: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleKey(call, pathId(c));
  const input = body<'updateApiKey'>(c) as Partial<NewKeyInput> & { description?: string | null; expires_at?: string | null };
  const { store, bus, now } = call.services;
  if (input.scopes) {
    assertGrantable(principal, input.scopes);
    await assertCreatorMayGrant(store, principal, record.type, record.workspace_id, input.scopes);
    if (record.user_id && record.workspace_id) await assertUserKeyWithinRole(store, principal.organisationId, record.user_id, record.workspace_id, input.scopes);
  }
  assertFuture(input.expires_at, now());
  const changes: Partial<ApiKeyRecord> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.scopes !== undefined) changes.scopes = input.scopes;
  if (input.allowed_models !== undefined) {
    assertModelsGrantable(principal, input.allowed_models, false);
    changes.allowed_models = input.allowed_models;
  }
  if (input.expires_at !== undefined) {
    const security = await call.services.savedResources.securitySettings(principal.organisationId, record.workspace_id);
    changes.expires_at = expiryUnderPolicy(security, input.expires_at, now(), false) ?? null;
  }
  Object.assign(changes, attachedLimitsInput(input));
  if (input.rotation_period !== undefined || input.rotation_period_days !== undefined) {
    let days = rotationDays(input);
    if (record.sub_type === 'user') days = await enforcedUserKeyRotation(store, principal.organisationId, days);
    changes.rotation_period = input.rotation_period ?? null;
    changes.rotation_period_days = input.rotation_period ? null : days;
    changes.next_rotation_at = nextRotationAt(days, now());
  }
  await store.apiKeys.update(principal.organisationId, record.id, changes, new Date(now()).toISOString());
  await bus.publish(API_KEYS_TOPIC, record.id);
  return { body: presentApiKey((await store.apiKeys.get(principal.organisationId, record.id))!, now()) };
};

export const deleteApiKey: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleKey(call, pathId(c));
  const { store, bus, now } = call.services;
  await store.apiKeys.update(principal.organisationId, record.id, { status: 'revoked', previous_key_hash: null }, new Date(now()).toISOString());
  await bus.publish(API_KEYS_TOPIC, record.id);
  return { body: { id: record.id, object: 'api_key', deleted: true } };
};

/**
 * Rotate reaches the keys the caller manages (api_keys.update) and, without that scope, the user's
 * own user keys (x-gw-own-key): how a user gets the secret of a key gw auto-created for them.
 */
/**
 * Without api_keys.update, a user's key may rotate (and so read the secret of) another key of the
 * same user only when that key can do nothing the caller cannot, or when it is an auto-created key
 * nobody has claimed yet: otherwise a leaked narrow key could mint a broader one.
 */
function mayClaimOwnKey(principal: Principal, record: ApiKeyRecord): boolean {
  if (record.auto_created && record.last_rotated_at === null) return true;
  return record.scopes.every((scope) => principal.scopes.has(scope));
}

async function rotatableKey(call: Call, id: string): Promise<ApiKeyRecord> {
  const principal = principalOf(call);
  const record = await call.services.store.apiKeys.get(principal.organisationId, id);
  if (record && principal.userId !== null && record.user_id === principal.userId && mayClaimOwnKey(principal, record)) return record;
  requireScope(principal, 'api_keys.update');
  return visibleKey(call, id);
}

export const rotateApiKey: Handler = async (c: Context, call) => {
  const principal = principalOf(call);
  const record = await rotatableKey(call, pathId(c));
  if (record.status !== 'active') throw new ValidationError('Only an active key can be rotated', null, 'key_not_active');
  const { store, bus, now } = call.services;
  const transitionMs = body<'rotateApiKey'>(c).key_transition_period_ms ?? 0;
  const at = now();
  const secret = generateApiKeySecret();
  const days = record.rotation_period_days ?? (record.rotation_period === 'weekly' ? 7 : record.rotation_period === 'monthly' ? 30 : null);
  const security = await call.services.savedResources.securitySettings(principal.organisationId, record.workspace_id);
  const expiresAt = expiryAfterRotation(security, record.expires_at, at);
  await store.apiKeys.update(
    principal.organisationId,
    record.id,
    {
      key_hash: hashApiKeySecret(secret),
      masked_key: maskApiKeySecret(secret),
      previous_key_hash: transitionMs > 0 ? record.key_hash : null,
      previous_key_expires_at: transitionMs > 0 ? new Date(at + transitionMs).toISOString() : null,
      last_rotated_at: new Date(at).toISOString(),
      next_rotation_at: nextRotationAt(days, at),
      expires_at: expiresAt,
    },
    new Date(at).toISOString(),
  );
  await bus.publish(API_KEYS_TOPIC, record.id);
  const updated = (await store.apiKeys.get(principal.organisationId, record.id))!;
  return { body: { ...presentApiKey(updated, at), key: secret } };
};
