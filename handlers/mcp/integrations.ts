import { randomBytes } from 'node:crypto';
import { syncCapabilities } from '../../gateway/mcp/capability-sync.js';
import { sealMcpConfigurations } from '../../gateway/mcp/integration-secrets.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ValidationError } from '../../core/errors.js';
import type { McpAuthType, McpIntegrationRecord, McpTransport } from '../../store/repositories/mcp-integrations.js';
import { body, pathId, query, type Handler } from '../types.js';
import { MCP_SERVERS_TOPIC } from '../../gateway/mcp/mcp-directory.js';
import { slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { assertKnownCapabilities, visibleMcpIntegration } from './access.js';
import { capabilityList, presentCapability, presentMcpIntegration, presentMetadata } from './present.js';

interface IntegrationInput {
  name?: string;
  slug?: string;
  description?: string | null;
  url?: string;
  transport?: McpTransport;
  auth_type?: McpAuthType;
  configurations?: Record<string, unknown>;
  global_workspace_access?: boolean;
  workspace_id?: string;
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

/** The gateway reads MCP servers from memory (mcp-directory.ts): every write here empties it, on every instance. */
const mcpServersChanged = (call: Call) => call.services.bus.publish(MCP_SERVERS_TOPIC, '*');


/** The client-credentials fields, and the token endpoint vetted as the token fetch will vet it. */
async function checkAuthFields(call: Call, authType: McpAuthType, configurations: Record<string, unknown>): Promise<void> {
  if (typeof configurations.token_url === 'string') {
    await call.services.outbound.vet(configurations.token_url, { param: 'configurations.token_url', code: 'unsafe_mcp_url' });
  }
  if (authType !== 'oauth_client_credentials') return;
  for (const field of ['client_id', 'client_secret', 'token_url']) {
    if (typeof configurations[field] !== 'string') {
      throw new ValidationError(`auth_type oauth_client_credentials needs configurations.${field}`, `configurations.${field}`);
    }
  }
}

export const createMcpIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createMcpIntegration'>(c) as IntegrationInput & { name: string; url: string; transport: McpTransport; auth_type: McpAuthType };
  const { store, secrets, mcpUpstreams } = call.services;
  // Workspace keys always create in their own workspace; admin keys make organisation integrations unless they name one.
  const workspaceId = principal.workspaceId ?? (input.workspace_id === undefined ? null : await targetWorkspaceId(call, principal, input.workspace_id));
  if (principal.workspaceId !== null && input.workspace_id !== undefined) await targetWorkspaceId(call, principal, input.workspace_id);
  if (workspaceId !== null && input.global_workspace_access) {
    throw new ValidationError('global_workspace_access applies to organisation integrations only', 'global_workspace_access');
  }
  const configurations = input.configurations ?? {};
  await checkAuthFields(call, input.auth_type, configurations);
  await mcpUpstreams.vetUrl(input.url);
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.mcpIntegrations.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`An MCP integration with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const sealed = sealMcpConfigurations(secrets, configurations);
  const record = await store.mcpIntegrations.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name,
      slug,
      description: input.description ?? null,
      url: input.url,
      transport: input.transport,
      auth_type: input.auth_type,
      configurations: sealed.configurations,
      secrets: sealed.secrets,
      global_workspace_access: input.global_workspace_access ?? false,
    },
    isoNow(call),
  );
  const outcome = await syncCapabilities(store, mcpUpstreams, record, call.services.now);
  await mcpServersChanged(call);
  return { status: 201, body: presentMcpIntegration({ ...record, ...outcome }) };
};

export const listMcpIntegrations: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { search, ...page } = query<'listMcpIntegrations'>(c);
  const result = await call.services.store.mcpIntegrations.list(principal.organisationId, { workspace_id: principal.workspaceId ?? undefined, search }, page);
  return { body: { ...result, data: result.data.map(presentMcpIntegration) } };
};

export const getMcpIntegration: Handler = async (c, call) => ({ body: presentMcpIntegration(await visibleMcpIntegration(call, pathId(c))) });

export const updateMcpIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleMcpIntegration(call, pathId(c), true);
  const input = body<'updateMcpIntegration'>(c) as IntegrationInput;
  const { store, secrets, mcpUpstreams } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.mcpIntegrations.slugTaken(principal.organisationId, input.slug))) {
    throw new ConflictError(`An MCP integration with slug ${input.slug} exists`, 'slug_taken', 'slug');
  }
  if (record.workspace_id !== null && input.global_workspace_access) {
    throw new ValidationError('global_workspace_access applies to organisation integrations only', 'global_workspace_access');
  }
  const changes: Partial<McpIntegrationRecord> = {};
  for (const field of ['name', 'slug', 'description', 'url', 'transport', 'auth_type', 'global_workspace_access'] as const) {
    if (input[field] !== undefined) (changes as Record<string, unknown>)[field] = input[field];
  }
  if (input.url !== undefined) await mcpUpstreams.vetUrl(input.url);
  if (input.configurations !== undefined) Object.assign(changes, sealMcpConfigurations(secrets, input.configurations, record.secrets));
  const connectionChanged = input.url !== undefined || input.transport !== undefined || input.auth_type !== undefined || input.configurations !== undefined;
  const authType = changes.auth_type ?? record.auth_type;
  if (input.configurations !== undefined || input.auth_type !== undefined) {
    await checkAuthFields(call, authType, (input.configurations as Record<string, unknown> | undefined) ?? sealedView(record));
  }
  await store.mcpIntegrations.update(record.id, changes, isoNow(call));
  let updated = (await store.mcpIntegrations.get(record.id))!;
  if (connectionChanged) updated = { ...updated, ...(await syncCapabilities(store, mcpUpstreams, updated, call.services.now)) };
  await mcpServersChanged(call);
  return { body: presentMcpIntegration(updated) };
};

/** The stored configurations (masked values count as present for the required-field check). */
const sealedView = (record: McpIntegrationRecord) => record.configurations;

export const deleteMcpIntegration: Handler = async (c, call) => {
  const record = await visibleMcpIntegration(call, pathId(c), true);
  const { store } = call.services;
  const users = await store.mcpServers.countUsing(record.id);
  if (users > 0) throw new ConflictError(`${users} MCP server(s) use this integration; delete them first`, 'mcp_integration_in_use');
  await store.mcpIntegrations.delete(record.id);
  await mcpServersChanged(call);
  return { body: { id: record.id, object: 'mcp-integration', deleted: true } };
};

async function workspacesBody(call: Call, record: McpIntegrationRecord) {
  const entries = await call.services.store.mcpIntegrations.workspaces(record.id);
  return {
    data: entries.map((entry) => ({ id: entry.workspace_id, enabled: entry.enabled, status: 'active' as const, created_at: entry.created_at, last_updated_at: entry.updated_at })),
    total: entries.length,
    global_workspace_access: { enabled: record.global_workspace_access },
  };
}

export const listMcpIntegrationWorkspaces: Handler = async (c, call) => ({ body: await workspacesBody(call, await visibleMcpIntegration(call, pathId(c))) });

export const updateMcpIntegrationWorkspaces: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleMcpIntegration(call, pathId(c), true);
  if (record.workspace_id !== null) {
    throw new ValidationError('A workspace-owned MCP integration is used by its own workspace only', 'workspaces', 'workspace_owned_integration');
  }
  const input = body<'updateMcpIntegrationWorkspaces'>(c) as {
    workspaces: Array<{ id: string; enabled: boolean }>;
    global_workspace_access?: { enabled: boolean };
    override_existing_workspace_access?: boolean;
  };
  const { store } = call.services;
  const entries: Array<{ workspace_id: string; enabled: boolean }> = [];
  for (const [index, entry] of input.workspaces.entries()) {
    const workspace = await store.workspaces.find(principal.organisationId, entry.id);
    if (!workspace) throw new ValidationError(`Workspace ${entry.id} not found`, `workspaces[${index}].id`, 'workspace_not_found');
    entries.push({ workspace_id: workspace.id, enabled: entry.enabled });
  }
  const now = isoNow(call);
  await store.transaction(async (tx) => {
    await tx.mcpIntegrations.setWorkspaces(record.id, entries, input.override_existing_workspace_access === true, now);
    if (input.global_workspace_access) await tx.mcpIntegrations.update(record.id, { global_workspace_access: input.global_workspace_access.enabled }, now);
  });
  await mcpServersChanged(call);
  return { body: await workspacesBody(call, (await store.mcpIntegrations.get(record.id))!) };
};

export const listMcpIntegrationCapabilities: Handler = async (c, call) => {
  const record = await visibleMcpIntegration(call, pathId(c));
  const { type } = query<'listMcpIntegrationCapabilities'>(c);
  const items = (await call.services.store.mcpIntegrations.capabilities(record.id)).filter((item) => !type || item.type === type);
  return { body: capabilityList(items.map((item) => presentCapability(item))) };
};


export const updateMcpIntegrationCapabilities: Handler = async (c, call) => {
  const record = await visibleMcpIntegration(call, pathId(c), true);
  const { capabilities } = body<'updateMcpIntegrationCapabilities'>(c) as { capabilities: Array<{ type: string; name: string; enabled: boolean }> };
  await assertKnownCapabilities(call, record.id, capabilities, 'capabilities');
  await call.services.store.mcpIntegrations.setCapabilityFlags(record.id, capabilities, isoNow(call));
  await mcpServersChanged(call);
  return { body: { success: true } };
};

export const getMcpIntegrationMetadata: Handler = async (c, call) => ({ body: presentMetadata(await visibleMcpIntegration(call, pathId(c))) });

export const syncMcpIntegration: Handler = async (c, call) => {
  const record = await visibleMcpIntegration(call, pathId(c), true);
  const outcome = await syncCapabilities(call.services.store, call.services.mcpUpstreams, record, call.services.now);
  await mcpServersChanged(call);
  return { body: presentMetadata(outcome) };
};
