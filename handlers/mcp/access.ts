import { principalOf, type Call } from '../../core/call.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';

/**
 * An integration the caller may see: any of the organisation for organisation callers; for a
 * workspace caller those its workspace owns or may use. Writes need ownership: a workspace caller
 * may change only its own workspace's integrations.
 */
export async function visibleMcpIntegration(call: Call, idOrSlug: string, forWrite = false): Promise<McpIntegrationRecord> {
  const principal = principalOf(call);
  const repository = call.services.store.mcpIntegrations;
  const record = await repository.find(principal.organisationId, idOrSlug);
  if (!record) throw new NotFoundError('MCP integration', idOrSlug);
  if (principal.workspaceId === null) return record;
  if (!(await repository.allows(record, principal.workspaceId))) throw new NotFoundError('MCP integration', idOrSlug);
  if (forWrite && record.workspace_id !== principal.workspaceId) {
    throw new ForbiddenError("This MCP integration belongs to the organisation; a workspace key can change its own workspace's integrations only");
  }
  return record;
}

/** A server the caller may see: any of the organisation for organisation callers, its own workspace's for workspace callers. */
export async function visibleMcpServer(call: Call, idOrSlug: string): Promise<{ server: McpServerRecord; integration: McpIntegrationRecord }> {
  const principal = principalOf(call);
  const { store } = call.services;
  const server = await store.mcpServers.find(principal.organisationId, idOrSlug);
  if (!server || (principal.workspaceId !== null && server.workspace_id !== principal.workspaceId)) throw new NotFoundError('MCP server', idOrSlug);
  const integration = (await store.mcpIntegrations.get(server.mcp_integration_id))!;
  return { server, integration };
}

/** Every entry must name a capability the server reported; the error names the first that does not. */
export async function assertKnownCapabilities(call: Call, integrationId: string, entries: Array<{ type: string; name: string }>, param: string): Promise<void> {
  const known = new Set((await call.services.store.mcpIntegrations.capabilities(integrationId)).map((item) => `${item.type}\u0000${item.name}`));
  entries.forEach((entry, index) => {
    if (!known.has(`${entry.type}\u0000${entry.name}`)) {
      throw new ValidationError(`The server reports no ${entry.type} named ${entry.name}`, `${param}[${index}].name`, 'unknown_capability');
    }
  });
}
