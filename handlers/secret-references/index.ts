import { randomBytes } from 'node:crypto';
import { SECRET_REFERENCES_TOPIC } from '../../gateway/secrets/secret-values.js';
import { actorOf } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { ManagerType, SecretReferenceRecord } from '../../store/repositories/secret-references.js';
import { body, pathId, query, type Handler } from '../types.js';
import { resolveWorkspaceIds, slugFromName } from '../workspace-target.js';
import { sealAuthConfig } from './auth-config.js';
import { presentSecretReference } from './present.js';

interface SecretReferenceInput {
  name?: string;
  slug?: string;
  description?: string | null;
  manager_type?: ManagerType;
  auth_config?: Record<string, unknown>;
  secret_path?: string;
  secret_key?: string | null;
  allow_all_workspaces?: boolean;
  allowed_workspaces?: string[];
  tags?: Record<string, string>;
}

/** A reference the caller may see: any for organisation callers, those its workspace may use otherwise. */
async function visibleReference(call: Call, idOrSlug: string): Promise<SecretReferenceRecord> {
  const principal = principalOf(call);
  const { secretReferences } = call.services.store;
  const record = await secretReferences.find(principal.organisationId, idOrSlug);
  if (!record || (principal.workspaceId !== null && !(await secretReferences.allows(record, principal.workspaceId)))) {
    throw new NotFoundError('Secret reference', idOrSlug);
  }
  return record;
}

/** allow_all_workspaces and allowed_workspaces together: a list means "only these". */
function workspaceAccess(input: SecretReferenceInput): boolean | undefined {
  if (input.allowed_workspaces !== undefined && input.allow_all_workspaces === true) {
    throw new ValidationError('allowed_workspaces cannot be combined with allow_all_workspaces: true', 'allowed_workspaces');
  }
  return input.allowed_workspaces !== undefined ? false : input.allow_all_workspaces;
}

async function present(call: Call, record: SecretReferenceRecord) {
  return presentSecretReference(record, await call.services.store.secretReferences.workspaceIds(record.id));
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

export const createSecretReference: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createSecretReference'>(c) as SecretReferenceInput & { name: string; manager_type: ManagerType; secret_path: string };
  const { store, secrets } = call.services;
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.secretReferences.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`A secret reference with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const sealed = await sealAuthConfig(secrets, input.manager_type, input.auth_config, undefined, call.services.outbound);
  const allowAll = workspaceAccess(input) ?? true;
  const workspaceIds = await resolveWorkspaceIds(call, principal.organisationId, input.allowed_workspaces ?? []);
  const record = await store.transaction(async (tx) => {
    const created = await tx.secretReferences.create(
      {
        organisation_id: principal.organisationId,
        name: input.name,
        slug,
        description: input.description ?? null,
        manager_type: input.manager_type,
        ...sealed,
        secret_path: input.secret_path,
        secret_key: input.secret_key ?? null,
        allow_all_workspaces: allowAll,
        tags: input.tags ?? {},
        created_by: actorOf(principal),
      },
      isoNow(call),
    );
    await tx.secretReferences.setWorkspaces(created.id, allowAll ? [] : workspaceIds);
    return created;
  });
  return { status: 201, body: await present(call, record) };
};

export const listSecretReferences: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listSecretReferences'>(c);
  const page = await call.services.store.secretReferences.list(
    principal.organisationId,
    { workspace_id: principal.workspaceId ?? undefined, manager_type: q.manager_type, search: q.search },
    q,
  );
  return { body: { ...page, data: await Promise.all(page.data.map((record) => present(call, record))) } };
};

export const getSecretReference: Handler = async (c, call) => ({ body: await present(call, await visibleReference(call, pathId(c))) });

export const updateSecretReference: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleReference(call, pathId(c));
  const input = body<'updateSecretReference'>(c) as SecretReferenceInput;
  const { store, secrets } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.secretReferences.slugTaken(principal.organisationId, input.slug))) {
    throw new ConflictError(`A secret reference with slug ${input.slug} exists`, 'slug_taken', 'slug');
  }
  const changes: Partial<SecretReferenceRecord> = {};
  if (input.auth_config !== undefined) Object.assign(changes, await sealAuthConfig(secrets, record.manager_type, input.auth_config, record, call.services.outbound));
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.description !== undefined) changes.description = input.description;
  if (input.secret_path !== undefined) changes.secret_path = input.secret_path;
  if (input.secret_key !== undefined) changes.secret_key = input.secret_key;
  if (input.tags !== undefined) changes.tags = input.tags;
  const allowAll = workspaceAccess(input);
  if (allowAll !== undefined) changes.allow_all_workspaces = allowAll;
  const workspaceIds = input.allowed_workspaces && (await resolveWorkspaceIds(call, principal.organisationId, input.allowed_workspaces));
  await store.transaction(async (tx) => {
    await tx.secretReferences.update(principal.organisationId, record.id, changes, isoNow(call));
    if (allowAll === true) await tx.secretReferences.setWorkspaces(record.id, []);
    else if (workspaceIds) await tx.secretReferences.setWorkspaces(record.id, workspaceIds);
  });
  await call.services.bus.publish(SECRET_REFERENCES_TOPIC, record.id);
  return { body: await present(call, (await store.secretReferences.find(principal.organisationId, record.id))!) };
};

export const deleteSecretReference: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleReference(call, pathId(c));
  const { store } = call.services;
  const uses = await store.secretReferences.countUses(record.id);
  if (uses > 0) {
    throw new ConflictError(`${uses} integration(s) or provider(s) map this secret reference; remove those secret_mappings first`, 'secret_reference_in_use');
  }
  await store.secretReferences.delete(principal.organisationId, record.id);
  await call.services.bus.publish(SECRET_REFERENCES_TOPIC, record.id);
  return { body: { id: record.id, object: 'secret-reference', deleted: true } };
};
