import { actorOf } from '../../core/auth/principal.js';
import { randomBytes } from 'node:crypto';
import type { Context } from 'openapi-backend';
import { assertRoutable } from '../../gateway/routing/config-checks.js';
import { configSecretField } from '../../gateway/guardrails/check-secrets.js';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { SAVED_RESOURCE_TOPICS } from '../../gateway/saved-resources-store.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { ConfigDocument, ConfigRecord, ConfigVersionRecord } from '../../store/repositories/configs.js';
import { openSecrets, sealSecrets, splitSecrets } from '../../store/secret-fields.js';
import { body, pathId, query, type Handler } from '../types.js';
import { listWorkspaceFilter, slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { assertGuardrailsExist, assertNotAWorkspaceDefault, assertSafeCustomHosts } from './config-rules.js';

/** A config the caller may see: its organisation's, and for a workspace key only its workspace's. */
async function visibleConfig(call: Call, idOrSlug: string): Promise<ConfigRecord> {
  const principal = principalOf(call);
  const record = await call.services.store.configs.find(principal.organisationId, idOrSlug);
  if (!record || (principal.workspaceId !== null && record.workspace_id !== principal.workspaceId)) throw new NotFoundError('Config', idOrSlug);
  return record;
}

/** Secrets (target api keys, AWS secrets, inline guardrails' endpoint headers) are sealed; the stored and answered document holds masks. */
function sealDocument(call: Call, config: ConfigNode, previous?: ConfigVersionRecord): ConfigDocument {
  const { secrets } = call.services;
  const split = splitSecrets(config as Record<string, unknown>, previous ? openSecrets(secrets, previous.secrets) : {}, configSecretField);
  return { config: split.masked, secrets: sealSecrets(secrets, split.secrets) };
}

function present(record: ConfigRecord, version: ConfigVersionRecord | undefined) {
  return {
    id: record.id,
    object: 'config' as const,
    name: record.name,
    slug: record.slug,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    status: record.status,
    version: record.version,
    config: version?.config ?? {},
    created_by: record.created_by,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

const presentVersion = (version: ConfigVersionRecord) => ({
  id: version.id,
  object: 'config_version' as const,
  config_id: version.config_id,
  version: version.version,
  config: version.config,
  created_by: version.created_by,
  created_at: version.created_at,
});

async function publish(call: Call, id: string): Promise<void> {
  await call.services.bus.publish(SAVED_RESOURCE_TOPICS.configs, id);
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

export const createConfig: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createConfig'>(c) as { name: string; slug?: string; workspace_id?: string; config: ConfigNode };
  const { store } = call.services;
  const workspaceId = await targetWorkspaceId(call, principal, input.workspace_id);
  // The spec schema has run; these are the routing rules it cannot say (conditional names, operators).
  assertRoutable(input.config, 'config');
  await assertSafeCustomHosts(call, input.config);
  await assertGuardrailsExist(call, principal.organisationId, workspaceId, input.config);
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.configs.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`A config with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const document = sealDocument(call, input.config);
  const record = await store.transaction((tx) =>
    tx.configs.create(
      { organisation_id: principal.organisationId, workspace_id: workspaceId, name: input.name, slug, created_by: actorOf(principal) },
      document,
      isoNow(call),
    ),
  );
  await publish(call, record.id);
  return { status: 201, body: present(record, await store.configs.version(record.id, 1)) };
};

async function list(c: Context, call: Call) {
  const principal = principalOf(call);
  const q = query<'listConfigs'>(c);
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const { configs } = call.services.store;
  const page = await configs.list(principal.organisationId, { workspace_id: workspaceId }, q);
  const versions = await configs.versionsOf(page.data);
  return { body: { ...page, data: page.data.map((record) => present(record, versions.get(record.id))) } };
}

export const listConfigs: Handler = list;
export const listConfigsV2: Handler = list;

export const getConfig: Handler = async (c, call) => {
  const record = await visibleConfig(call, pathId(c));
  return { body: present(record, await call.services.store.configs.version(record.id, record.version)) };
};

export const updateConfig: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleConfig(call, pathId(c));
  const input = body<'updateConfig'>(c) as { name?: string; config?: ConfigNode };
  const { store } = call.services;
  const latest = await store.configs.version(record.id, record.version);
  if (input.config) {
    assertRoutable(input.config, 'config');
    await assertSafeCustomHosts(call, input.config);
    await assertGuardrailsExist(call, principal.organisationId, record.workspace_id, input.config);
  }
  // Every update is a new version, a rename included: the history shows who changed what when.
  const document = input.config ? sealDocument(call, input.config, latest) : { config: latest?.config ?? {}, secrets: latest?.secrets ?? null };
  const changes = input.name !== undefined ? { name: input.name } : {};
  try {
    await store.transaction((tx) => tx.configs.update(record, changes, document, actorOf(principal), isoNow(call)));
  } catch (error) {
    // Two updates raced for the same next version number; the loser may simply retry.
    if (await store.configs.version(record.id, record.version + 1)) throw new ConflictError('The config changed meanwhile; retry', 'version_conflict');
    throw error;
  }
  await publish(call, record.id);
  const updated = (await store.configs.find(principal.organisationId, record.id))!;
  return { body: present(updated, await store.configs.version(updated.id, updated.version)) };
};

export const deleteConfig: Handler = async (c, call) => {
  const record = await visibleConfig(call, pathId(c));
  await assertNotAWorkspaceDefault(call, record);
  await call.services.store.transaction((tx) => tx.configs.delete(record.id));
  await publish(call, record.id);
  return { body: { id: record.id, object: 'config', deleted: true } };
};

export const listConfigVersions: Handler = async (c, call) => {
  const record = await visibleConfig(call, pathId(c));
  const page = await call.services.store.configs.listVersions(record.id, query<'listConfigVersions'>(c));
  return { body: { ...page, data: page.data.map(presentVersion) } };
};
