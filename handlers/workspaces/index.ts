import { randomBytes } from 'node:crypto';
import type { Context } from 'openapi-backend';
import type { components } from '../../generated/types.js';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ValidationError } from '../../core/errors.js';
import type { Workspace } from '../../store/repositories/workspaces.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow, visibleWorkspace } from '../workspace-access.js';
import { presentWorkspace, type WorkspaceSettings } from './present.js';
import { LIMIT_POLICIES_TOPIC } from '../../gateway/limits/policy-cache.js';
import { SAVED_RESOURCE_TOPICS } from '../../gateway/saved-resources-store.js';
import type { AttachedLimits } from '../../core/limit-policy-types.js';
import { attachedLimitsInput } from '../policies/attached-limits.js';
import { applySecuritySettings } from './security-settings.js';

export * from './members.js';

type UpdateInput = components['schemas']['WorkspaceFields'];

function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
  return base || `workspace-${randomBytes(3).toString('hex')}`;
}

/**
 * The config a workspace default names (id or slug), stored as its id; it must be the organisation's
 * and usable here: organisation-wide, or of this workspace (so never another workspace's on create).
 */
async function resolveDefaultConfig(call: Call, workspaceId: string | null, idOrSlug: string): Promise<string> {
  const principal = principalOf(call);
  const config = await call.services.store.configs.find(principal.organisationId, idOrSlug);
  if (!config || (config.workspace_id !== null && config.workspace_id !== workspaceId)) {
    throw new ValidationError(`No config ${idOrSlug} in this workspace`, 'defaults.user_api_key_config', 'unknown_config');
  }
  return config.id;
}

/** Settings and defaults after an update, with every cross-field rule the schema cannot say. */
async function applyChanges(call: Call, workspace: Pick<Workspace, 'id' | 'defaults' | 'settings'> | null, input: UpdateInput) {
  const principal = principalOf(call);
  const defaults = { ...(workspace?.defaults ?? {}) };
  const settings = { ...((workspace?.settings ?? {}) as WorkspaceSettings) };
  if (input.defaults && 'user_api_key_config' in input.defaults) {
    const wanted = input.defaults.user_api_key_config;
    defaults.user_api_key_config = wanted ? await resolveDefaultConfig(call, workspace?.id ?? null, wanted) : null;
  }
  if (input.security_settings) {
    const organisation = await call.services.store.organisations.get(principal.organisationId);
    const organisationSecurity = (organisation?.settings.security_settings ?? {}) as Record<string, unknown>;
    settings.security_settings = applySecuritySettings(settings.security_settings ?? {}, input.security_settings as Record<string, unknown>, organisationSecurity);
  }
  if (input.user_api_key_auto_create !== undefined) settings.user_api_key_auto_create = input.user_api_key_auto_create;
  if (input.user_api_key_ttl !== undefined) settings.user_api_key_ttl = input.user_api_key_ttl;
  return { defaults, settings: settings as Record<string, unknown> };
}

export const createWorkspace: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createWorkspace'>(c) as UpdateInput & { name: string; slug?: string };
  const { store } = call.services;
  const slug = input.slug ?? slugFrom(input.name);
  if (await store.workspaces.find(principal.organisationId, slug)) {
    throw new ConflictError(`A workspace with slug ${slug} exists`, 'slug_taken', 'slug');
  }
  const { defaults, settings } = await applyChanges(call, null, input);
  const workspace = await store.workspaces.create(
    { organisation_id: principal.organisationId, name: input.name, slug, description: input.description ?? null, defaults, settings, ...attachedLimitsInput(input as AttachedLimits) },
    isoNow(call),
  );
  return { status: 201, body: await presentWorkspace(store, workspace) };
};

export const listWorkspaces: Handler = async (c, call) => {
  const principal = principalOf(call);
  const page = await call.services.store.workspaces.list(principal.organisationId, query<'listWorkspaces'>(c), principal.workspaceId ?? undefined);
  const data = await Promise.all(page.data.map((workspace) => presentWorkspace(call.services.store, workspace)));
  return { body: { ...page, data } };
};

export const getWorkspace: Handler = async (c, call) => ({
  body: await presentWorkspace(call.services.store, await visibleWorkspace(call, pathId(c))),
});

export const getWorkspaceV2: Handler = async (c, call) => ({
  body: await presentWorkspace(call.services.store, await visibleWorkspace(call, pathId(c)), query<'getWorkspaceV2'>(c).name_format),
});

async function update(c: Context, call: Call) {
  const principal = principalOf(call);
  const workspace = await visibleWorkspace(call, pathId(c));
  const input = body<'updateWorkspace'>(c) as UpdateInput;
  const { defaults, settings } = await applyChanges(call, workspace, input);
  const changes: Parameters<typeof call.services.store.workspaces.update>[2] = { defaults, settings };
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  const limits = attachedLimitsInput(input as AttachedLimits);
  Object.assign(changes, limits);
  await call.services.store.workspaces.update(principal.organisationId, workspace.id, changes, isoNow(call));
  // The gateway reads a workspace's own limits from memory; this drops them there.
  if (Object.keys(limits).length) await call.services.bus.publish(LIMIT_POLICIES_TOPIC, workspace.id);
  // The gateway reads defaults.user_api_key_config from memory too.
  // ...and its security_settings (the address check, key expiry rules, body logging).
  if (input.defaults || input.security_settings) await call.services.bus.publish(SAVED_RESOURCE_TOPICS.workspaces, workspace.id);
  const updated = (await call.services.store.workspaces.get(principal.organisationId, workspace.id))!;
  return { body: await presentWorkspace(call.services.store, updated) };
}

export const updateWorkspace: Handler = update;
export const updateWorkspaceV2: Handler = update;

export const deleteWorkspace: Handler = async (c, call) => {
  const principal = principalOf(call);
  const workspace = await visibleWorkspace(call, pathId(c));
  const { store, bus } = call.services;
  if (workspace.is_default) throw new ConflictError('The default workspace cannot be deleted', 'default_workspace');
  if (await store.sharedPrompts.hasSharedPromptsOrPartials(workspace.id)) {
    throw new ConflictError('The workspace has shared prompts or partials: unshare them first', 'workspace_has_shared_prompts');
  }
  // Its keys go with it (cascade): every instance must forget them at once.
  const keyIds = await store.apiKeys.idsInWorkspace(workspace.id);
  await store.workspaces.delete(principal.organisationId, workspace.id);
  for (const keyId of keyIds) await bus.publish(API_KEYS_TOPIC, keyId);
  await bus.publish(SAVED_RESOURCE_TOPICS.workspaces, workspace.id);
  return { body: { id: workspace.id, object: 'workspace', deleted: true } };
};
