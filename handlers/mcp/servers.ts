import { randomBytes } from 'node:crypto';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ValidationError } from '../../core/errors.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import { body, pathId, query, type Handler } from '../types.js';
import { MCP_SERVERS_TOPIC, MCP_SESSIONS_TOPIC } from '../../gateway/mcp/mcp-directory.js';
import { listWorkspaceFilter, slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { assertKnownCapabilities, visibleMcpServer } from './access.js';
import { capabilityList, presentCapability, presentMcpServer } from './present.js';
import { serverCapabilities } from '../../gateway/mcp/server-capabilities.js';

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

/** Which server-to-client features gw relays for the server (gateway/mcp/client-features.ts). */
const RELAY_FIELDS = ['relay_logging', 'relay_sampling', 'relay_elicitation'] as const;
type RelayField = (typeof RELAY_FIELDS)[number];

/** The gateway reads MCP servers from memory (mcp-directory.ts): every write here empties it, on every instance. */
const mcpServersChanged = (call: Call) => call.services.bus.publish(MCP_SERVERS_TOPIC, '*');


async function present(call: Call, server: McpServerRecord, integration?: McpIntegrationRecord) {
  const owner = integration ?? (await call.services.store.mcpIntegrations.get(server.mcp_integration_id))!;
  return presentMcpServer(server, owner, call.services.config.publicUrl);
}

/** Slugs are path segments of the gateway URL: lower case, 3 to 50 characters. */
function serverSlugFrom(name: string): string {
  const slug = slugFromName(name).replace(/\./g, '-').slice(0, 43);
  return slug.length >= 3 ? slug : `${slug}-mcp`.replace(/^-/, '');
}

export const createMcpServer: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createMcpServer'>(c) as { name: string; slug?: string; description?: string | null; mcp_integration_id: string; workspace_id?: string; default_user_access?: 'allow' | 'deny' } & Partial<Pick<McpServerRecord, RelayField>>;
  const { store } = call.services;
  const workspaceId = await targetWorkspaceId(call, principal, input.workspace_id);
  const integration = await store.mcpIntegrations.find(principal.organisationId, input.mcp_integration_id);
  if (!integration) throw new ValidationError(`MCP integration ${input.mcp_integration_id} not found`, 'mcp_integration_id', 'mcp_integration_not_found');
  if (!(await store.mcpIntegrations.allows(integration, workspaceId))) {
    throw new ValidationError(`The workspace may not use MCP integration ${input.mcp_integration_id}`, 'mcp_integration_id', 'mcp_integration_not_allowed');
  }
  let slug = input.slug ?? serverSlugFrom(input.name);
  if (await store.mcpServers.slugTaken(slug)) {
    if (input.slug) throw new ConflictError(`An MCP server with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const server = await store.mcpServers.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      mcp_integration_id: integration.id,
      name: input.name,
      slug,
      description: input.description ?? null,
      default_user_access: input.default_user_access ?? 'allow',
      relay_logging: input.relay_logging ?? true,
      relay_sampling: input.relay_sampling ?? true,
      relay_elicitation: input.relay_elicitation ?? true,
    },
    isoNow(call),
  );
  await mcpServersChanged(call);
  return { status: 201, body: await present(call, server, integration) };
};

export const listMcpServers: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { workspace_id, ...page } = query<'listMcpServers'>(c);
  const filter = await listWorkspaceFilter(call, principal, workspace_id);
  const result = await call.services.store.mcpServers.list(principal.organisationId, { workspace_id: filter }, page);
  return { body: { ...result, data: await Promise.all(result.data.map((server) => present(call, server))) } };
};

export const getMcpServer: Handler = async (c, call) => {
  const { server, integration } = await visibleMcpServer(call, pathId(c));
  return { body: await present(call, server, integration) };
};

export const updateMcpServer: Handler = async (c, call) => {
  const { server, integration } = await visibleMcpServer(call, pathId(c));
  const input = body<'updateMcpServer'>(c) as Partial<Pick<McpServerRecord, 'name' | 'description' | 'default_user_access' | RelayField>>;
  const changes: Partial<McpServerRecord> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.default_user_access !== undefined) changes.default_user_access = input.default_user_access;
  for (const field of RELAY_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
  await call.services.store.mcpServers.update(server.id, changes, isoNow(call));
  await mcpServersChanged(call);
  return { body: await present(call, { ...server, ...changes, updated_at: isoNow(call) }, integration) };
};

export const deleteMcpServer: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  await call.services.store.mcpServers.delete(server.id);
  await mcpServersChanged(call);
  return { body: { id: server.id, object: 'mcp-server', deleted: true } };
};

export const testMcpServer: Handler = async (c, call) => {
  const { integration } = await visibleMcpServer(call, pathId(c));
  const { mcpUpstreams, now } = call.services;
  const started = now();
  try {
    const connection = await mcpUpstreams.connect(integration);
    const elapsed = now() - started;
    const name = connection.client.getServerVersion()?.name ?? null;
    await connection.close().catch(() => undefined);
    return { body: { success: true, status_code: 200, response_time_ms: elapsed, url: integration.url, server_name: name, error: null } };
  } catch (error) {
    const status = (error as { code?: unknown }).code;
    return {
      body: {
        success: false,
        status_code: typeof status === 'number' && status >= 100 && status < 600 ? status : null,
        response_time_ms: now() - started,
        url: integration.url,
        server_name: null,
        error: error instanceof Error ? error.message : String(error),
      },
    };
  }
};

export const listMcpServerCapabilities: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const { type } = query<'listMcpServerCapabilities'>(c);
  const items = (await serverCapabilities(call.services.store, server)).filter((item) => !type || item.record.type === type);
  return { body: capabilityList(items.map((item) => presentCapability(item.record, item.enabled, item.record.enabled))) };
};

export const updateMcpServerCapabilities: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const { capabilities } = body<'updateMcpServerCapabilities'>(c) as { capabilities: Array<{ type: string; name: string; enabled: boolean }> };
  await assertKnownCapabilities(call, server.mcp_integration_id, capabilities, 'capabilities');
  await call.services.store.mcpServers.setCapabilityFlags(server.id, capabilities, isoNow(call));
  await mcpServersChanged(call);
  return { body: { success: true } };
};

export const listMcpServerUserAccess: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const { store } = call.services;
  const overrides = new Map((await store.mcpServers.userAccess(server.id)).map((entry) => [entry.user_id, entry.enabled]));
  const members = (await store.workspaceMembers.list(server.workspace_id, { limit: 100 })).data.map((member) => member.user_id);
  const connected = new Set((await store.mcpSessions.listForServer(server.id)).map((session) => session.user_id));
  const data = [];
  for (const userId of new Set([...members, ...overrides.keys()])) {
    const user = await store.users.get(server.organisation_id, userId);
    if (!user) continue;
    const override = overrides.get(userId);
    data.push({
      user_id: userId,
      first_name: user.first_name,
      last_name: user.last_name,
      enabled: override ?? server.default_user_access === 'allow',
      has_override: override !== undefined,
      connection_status: connected.has(userId) ? ('connected' as const) : ('not_connected' as const),
    });
  }
  return { body: { data, default_user_access: server.default_user_access, total: data.length, has_more: false } };
};

export const updateMcpServerUserAccess: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const input = body<'updateMcpServerUserAccess'>(c) as { user_access?: Array<{ user_id: string; enabled: boolean }>; default_user_access?: 'allow' | 'deny' };
  const { store } = call.services;
  for (const [index, entry] of (input.user_access ?? []).entries()) {
    if (!(await store.users.get(server.organisation_id, entry.user_id))) {
      throw new ValidationError(`User ${entry.user_id} not found`, `user_access[${index}].user_id`, 'user_not_found');
    }
  }
  const now = isoNow(call);
  await store.transaction(async (tx) => {
    await tx.mcpServers.setUserAccess(server.id, input.user_access ?? [], now);
    if (input.default_user_access) await tx.mcpServers.update(server.id, { default_user_access: input.default_user_access }, now);
  });
  await mcpServersChanged(call);
  return { body: { success: true } };
};

export const listMcpServerConnections: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const { user_id } = query<'listMcpServerConnections'>(c);
  const sessions = await call.services.store.mcpSessions.listForServer(server.id, user_id);
  const data = sessions.map((session) => ({ user_id: session.user_id, session_id: session.id, connected: true, created_at: session.created_at, last_updated_at: session.updated_at }));
  return { body: { data, total: data.length, has_more: false } };
};

export const deleteMcpServerConnections: Handler = async (c, call) => {
  const { server } = await visibleMcpServer(call, pathId(c));
  const { user_id } = query<'deleteMcpServerConnections'>(c);
  await call.services.store.mcpSessions.deleteForServer(server.id, user_id);
  await call.services.bus.publish(MCP_SESSIONS_TOPIC, server.id);
  return { body: { success: true } };
};
