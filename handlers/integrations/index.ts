import { randomBytes } from 'node:crypto';
import { SAVED_RESOURCE_TOPICS } from '../../gateway/saved-resources-store.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { IntegrationModelSettings, IntegrationRecord } from '../../store/repositories/integrations.js';
import { sealCredentials, type CredentialInput } from '../providers/credentials.js';
import { assertSafeCredentialUrls } from '../providers/credential-urls.js';
import { body, pathId, query, type Handler } from '../types.js';
import { resolveWorkspaceIds, slugFromName } from '../workspace-target.js';
import { presentIntegration } from './present.js';
import { mappedFields, resolveSecretMappings } from '../secret-references/mappings.js';

interface IntegrationInput extends CredentialInput {
  name?: string;
  slug?: string;
  description?: string | null;
  pricing_adjustments?: { multiplier?: number };
  secret_mappings?: Array<Record<string, unknown>>;
  workspace_access?: WorkspaceAccess;
}

interface WorkspaceAccess {
  all_workspaces: boolean;
  workspace_ids: string[];
}

/** An integration the caller may see: any for admin keys, those its workspace may use for workspace keys. */
async function visibleIntegration(call: Call, idOrSlug: string): Promise<IntegrationRecord> {
  const principal = principalOf(call);
  const { integrations } = call.services.store;
  const record = await integrations.find(principal.organisationId, idOrSlug);
  if (!record || (principal.workspaceId !== null && !(await integrations.allows(record, principal.workspaceId)))) {
    throw new NotFoundError('Integration', idOrSlug);
  }
  return record;
}

async function present(call: Call, record: IntegrationRecord) {
  return presentIntegration(record, await call.services.store.integrations.workspaceIds(record.id));
}

async function publish(call: Call, id: string): Promise<void> {
  await call.services.bus.publish(SAVED_RESOURCE_TOPICS.integrations, id);
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

export const createIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createIntegration'>(c) as IntegrationInput & { name: string; ai_provider_id: string };
  const { store, secrets } = call.services;
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.integrations.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`An integration with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const mappings = await resolveSecretMappings(call, principal.organisationId, null, input.secret_mappings ?? []);
  await assertSafeCredentialUrls(call, input);
  const credentials = sealCredentials(secrets, input.ai_provider_id, input, undefined, true, mappedFields(mappings as never));
  const access = input.workspace_access ?? { all_workspaces: false, workspace_ids: [] };
  const workspaceIds = await resolveWorkspaceIds(call, principal.organisationId, access.workspace_ids);
  const record = await store.transaction(async (tx) => {
    const created = await tx.integrations.create(
      {
        organisation_id: principal.organisationId,
        name: input.name,
        slug,
        description: input.description ?? null,
        ai_provider_id: input.ai_provider_id,
        ...credentials,
        pricing_adjustments: input.pricing_adjustments ?? {},
        secret_mappings: mappings as never,
        all_workspaces: access.all_workspaces,
      },
      isoNow(call),
    );
    await tx.integrations.setWorkspaces(created.id, workspaceIds);
    await tx.secretReferences.setUses({ integration_id: created.id }, mappings.map((m) => m.secret_reference_id));
    return created;
  });
  await publish(call, record.id);
  return { status: 201, body: await present(call, record) };
};

export const listIntegrations: Handler = async (c, call) => {
  const principal = principalOf(call);
  const page = await call.services.store.integrations.list(
    principal.organisationId,
    { workspace_id: principal.workspaceId ?? undefined },
    query<'listIntegrations'>(c),
  );
  return { body: { ...page, data: await Promise.all(page.data.map((record) => present(call, record))) } };
};

export const getIntegration: Handler = async (c, call) => ({ body: await present(call, await visibleIntegration(call, pathId(c))) });

export const updateIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleIntegration(call, pathId(c));
  const input = body<'updateIntegration'>(c) as IntegrationInput;
  const { store, secrets } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.integrations.slugTaken(principal.organisationId, input.slug))) {
    throw new ConflictError(`An integration with slug ${input.slug} exists`, 'slug_taken', 'slug');
  }
  const aiProvider = input.ai_provider_id ?? record.ai_provider_id;
  const mappings = input.secret_mappings && (await resolveSecretMappings(call, principal.organisationId, null, input.secret_mappings));
  await assertSafeCredentialUrls(call, input);
  const credentialsChanged =
    input.key !== undefined || input.configurations !== undefined || input.auth_type !== undefined || input.ai_provider_id !== undefined || mappings !== undefined;
  const mapped = mappedFields((mappings ?? record.secret_mappings) as never);
  const changes: Partial<IntegrationRecord> = {
    ...(credentialsChanged ? sealCredentials(secrets, aiProvider, input, record, true, mapped) : {}),
    ai_provider_id: aiProvider,
  };
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.description !== undefined) changes.description = input.description;
  if (input.pricing_adjustments !== undefined) changes.pricing_adjustments = input.pricing_adjustments;
  if (mappings) changes.secret_mappings = mappings as never;
  const workspaceIds = input.workspace_access && (await resolveWorkspaceIds(call, principal.organisationId, input.workspace_access.workspace_ids));
  if (input.workspace_access) changes.all_workspaces = input.workspace_access.all_workspaces;
  await store.transaction(async (tx) => {
    await tx.integrations.update(principal.organisationId, record.id, changes, isoNow(call));
    if (workspaceIds) await tx.integrations.setWorkspaces(record.id, workspaceIds);
    if (mappings) await tx.secretReferences.setUses({ integration_id: record.id }, mappings.map((m) => m.secret_reference_id));
  });
  await publish(call, record.id);
  return { body: await present(call, (await store.integrations.find(principal.organisationId, record.id))!) };
};

export const deleteIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleIntegration(call, pathId(c));
  const { store } = call.services;
  const users = await store.providers.countUsing(record.id);
  if (users > 0) throw new ConflictError(`${users} provider(s) use this integration; delete or move them first`, 'integration_in_use');
  await store.integrations.delete(principal.organisationId, record.id);
  await publish(call, record.id);
  return { body: { id: record.id, object: 'integration', deleted: true } };
};

export const getIntegrationWorkspaces: Handler = async (c, call) => {
  const record = await visibleIntegration(call, pathId(c));
  return { body: (await present(call, record)).workspace_access };
};

export const updateIntegrationWorkspaces: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleIntegration(call, pathId(c));
  const access = body<'updateIntegrationWorkspaces'>(c) as WorkspaceAccess;
  const workspaceIds = await resolveWorkspaceIds(call, principal.organisationId, access.workspace_ids);
  const { store } = call.services;
  await store.transaction(async (tx) => {
    await tx.integrations.update(principal.organisationId, record.id, { all_workspaces: access.all_workspaces }, isoNow(call));
    await tx.integrations.setWorkspaces(record.id, workspaceIds);
  });
  await publish(call, record.id);
  return { body: (await present(call, (await store.integrations.find(principal.organisationId, record.id))!)).workspace_access };
};

const modelList = (models: IntegrationModelSettings[]) => ({ object: 'list', data: models, has_more: false, next_cursor: null });

export const listIntegrationModels: Handler = async (c, call) => ({ body: modelList((await visibleIntegration(call, pathId(c))).models) });

export const putIntegrationModels: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleIntegration(call, pathId(c));
  const { models } = body<'putIntegrationModels'>(c) as { models: IntegrationModelSettings[] };
  for (const [index, model] of models.entries()) {
    const host = model.configurations?.custom_host;
    if (host !== undefined) await call.services.outbound.vet(host, { param: `models[${index}].configurations.custom_host`, code: 'custom_host_refused' });
  }
  const bySlug = new Map(models.map((model) => [model.slug, model]));
  const unique = [...bySlug.values()];
  await call.services.store.integrations.update(principal.organisationId, record.id, { models: unique }, isoNow(call));
  await publish(call, record.id);
  return { body: modelList(unique) };
};
