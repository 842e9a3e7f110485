import { randomBytes } from 'node:crypto';
import type { Context } from 'openapi-backend';
import { SAVED_RESOURCE_TOPICS } from '../../gateway/saved-resources-store.js';
import type { Principal } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { IntegrationRecord } from '../../store/repositories/integrations.js';
import type { ProviderRecord } from '../../store/repositories/providers.js';
import { body, pathId, query, type Handler } from '../types.js';
import { listWorkspaceFilter, slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { sealCredentials, type CredentialInput } from './credentials.js';
import { assertSafeCredentialUrls } from './credential-urls.js';
import { presentProvider } from './present.js';
import { mappedFields, resolveSecretMappings } from '../secret-references/mappings.js';

/** The scope that, on an organisation key, makes a call "system authentication". */
const PROVIDER_CONFIGURATIONS_SCOPE = 'provider_configurations.read';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { attachedLimitsInput } from '../policies/attached-limits.js';

interface ProviderInput extends CredentialInput, AttachedLimits {
  name?: string;
  slug?: string;
  note?: string | null;
  integration_id?: string;
  workspace_id?: string;
  secret_mappings?: Array<Record<string, unknown>>;
}

/** By id anywhere the caller can see; by slug within the caller's workspace (the default one for admin keys). */
async function visibleProvider(call: Call, idOrSlug: string): Promise<ProviderRecord> {
  const principal = principalOf(call);
  const { providers } = call.services.store;
  const record = principal.workspaceId
    ? await providers.find(principal.organisationId, idOrSlug, principal.workspaceId)
    : ((await providers.find(principal.organisationId, idOrSlug, null)) ??
      (await providers.find(principal.organisationId, idOrSlug, principal.gatewayWorkspaceId)));
  if (!record) throw new NotFoundError('Provider', idOrSlug);
  return record;
}

/** The integration a provider may point at: it exists and lets the provider's workspace use it. */
async function usableIntegration(call: Call, principal: Principal, idOrSlug: string, workspaceId: string): Promise<IntegrationRecord> {
  const { integrations } = call.services.store;
  const integration = await integrations.find(principal.organisationId, idOrSlug);
  if (!integration) throw new NotFoundError('Integration', idOrSlug);
  if (!(await integrations.allows(integration, workspaceId))) {
    throw new ForbiddenError(`Integration ${integration.slug} is not enabled for this workspace`, 'integration_not_allowed');
  }
  return integration;
}

function providerOf(input: ProviderInput, integration: IntegrationRecord | undefined, current?: string): string {
  if (integration && input.ai_provider_id && input.ai_provider_id !== integration.ai_provider_id) {
    throw new ValidationError(`ai_provider_id must match the integration's (${integration.ai_provider_id})`, 'ai_provider_id');
  }
  return integration?.ai_provider_id ?? input.ai_provider_id ?? current!;
}

async function publish(call: Call, id: string): Promise<void> {
  await call.services.bus.publish(SAVED_RESOURCE_TOPICS.providers, id);
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

async function create(c: Context, call: Call) {
  const principal = principalOf(call);
  const input = body<'createProvider'>(c) as ProviderInput & { name: string };
  const { store, secrets } = call.services;
  const workspaceId = await targetWorkspaceId(call, principal, input.workspace_id);
  const integration = input.integration_id ? await usableIntegration(call, principal, input.integration_id, workspaceId) : undefined;
  const aiProvider = providerOf(input, integration);
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.providers.slugTaken(workspaceId, slug)) {
    if (input.slug) throw new ConflictError(`A provider with slug ${slug} exists in this workspace`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const mappings = await resolveSecretMappings(call, principal.organisationId, workspaceId, input.secret_mappings ?? []);
  await assertSafeCredentialUrls(call, input);
  const credentials = sealCredentials(secrets, aiProvider, { auth_type: integration?.auth_type as never, ...input }, undefined, !integration, mappedFields(mappings as never));
  const record = await store.transaction(async (tx) => {
    const created = await tx.providers.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      integration_id: integration?.id ?? null,
      name: input.name,
      slug,
      note: input.note ?? null,
      ai_provider_id: aiProvider,
      ...credentials,
      secret_mappings: mappings as never,
      ...attachedLimitsInput(input),
    },
    isoNow(call),
    );
    await tx.secretReferences.setUses({ provider_id: created.id }, mappings.map((m) => m.secret_reference_id));
    return created;
  });
  await publish(call, record.id);
  return { status: 201, body: presentProvider(record) };
}

async function list(c: Context, call: Call) {
  const principal = principalOf(call);
  const q = query<'listProviders'>(c);
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const page = await call.services.store.providers.list(principal.organisationId, { workspace_id: workspaceId }, q);
  return { body: { ...page, data: page.data.map((record) => presentProvider(record)) } };
}

async function get(c: Context, call: Call) {
  const principal = principalOf(call);
  const record = await visibleProvider(call, pathId(c));
  if (!query<'getProvider'>(c).include_configurations) return { body: presentProvider(record) };
  if (principal.workspaceId !== null || !principal.scopes.has(PROVIDER_CONFIGURATIONS_SCOPE)) {
    throw new ForbiddenError(
      `include_configurations needs system authentication: an organisation key with the ${PROVIDER_CONFIGURATIONS_SCOPE} scope`,
      'system_authentication_required',
    );
  }
  const integration = record.integration_id ? await call.services.store.integrations.find(principal.organisationId, record.integration_id) : undefined;
  return { body: presentProvider(record, { integration }) };
}

async function update(c: Context, call: Call) {
  const principal = principalOf(call);
  const record = await visibleProvider(call, pathId(c));
  const input = body<'updateProvider'>(c) as ProviderInput;
  const { store, secrets } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.providers.slugTaken(record.workspace_id, input.slug))) {
    throw new ConflictError(`A provider with slug ${input.slug} exists in this workspace`, 'slug_taken', 'slug');
  }
  const integrationRef = input.integration_id ?? record.integration_id;
  const integration = integrationRef ? await usableIntegration(call, principal, integrationRef, record.workspace_id) : undefined;
  const aiProvider = providerOf(input, integration, record.ai_provider_id);
  const mappings = input.secret_mappings && (await resolveSecretMappings(call, principal.organisationId, record.workspace_id, input.secret_mappings));
  await assertSafeCredentialUrls(call, input);
  const changes: Partial<ProviderRecord> = {
    ...sealCredentials(secrets, aiProvider, input, record, !integration, mappedFields((mappings ?? record.secret_mappings) as never)),
    ai_provider_id: aiProvider,
    integration_id: integration?.id ?? null,
  };
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.note !== undefined) changes.note = input.note;
  Object.assign(changes, attachedLimitsInput(input));
  if (mappings) changes.secret_mappings = mappings as never;
  await store.transaction(async (tx) => {
    await tx.providers.update(principal.organisationId, record.id, changes, isoNow(call));
    if (mappings) await tx.secretReferences.setUses({ provider_id: record.id }, mappings.map((m) => m.secret_reference_id));
  });
  await publish(call, record.id);
  return { body: presentProvider((await store.providers.find(principal.organisationId, record.id, null))!) };
}

async function remove(c: Context, call: Call) {
  const principal = principalOf(call);
  const record = await visibleProvider(call, pathId(c));
  await call.services.store.providers.delete(principal.organisationId, record.id);
  await publish(call, record.id);
  return { body: { id: record.id, object: 'provider', deleted: true } };
}

export const createProvider: Handler = create;
export const listProviders: Handler = list;
export const getProvider: Handler = get;
export const updateProvider: Handler = update;
export const deleteProvider: Handler = remove;

// Legacy virtual-key routes: the same providers under their old name.
export const createVirtualKey: Handler = create;
export const listVirtualKeys: Handler = list;
export const getVirtualKey: Handler = get;
export const updateVirtualKey: Handler = update;
export const deleteVirtualKey: Handler = remove;
