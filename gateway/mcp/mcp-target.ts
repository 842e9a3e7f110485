import type { Principal } from '../../core/auth/principal.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import type { Store } from '../../store/store.js';
import { serverCapabilities, type ServerCapability } from './server-capabilities.js';

/** The MCP server a gateway request is for, and what the caller may use on it. */
export interface McpTarget {
  server: McpServerRecord;
  integration: McpIntegrationRecord;
  capabilities: ServerCapability[];
}

/**
 * The server at `{base}/{slug}/mcp`, if the caller may use it: same organisation; workspace
 * callers only their workspace's servers; people (user keys, JWTs, sessions, OAuth tokens) by the
 * server's user access (their own setting, else its default). Service keys stand for no person:
 * their key's scope and workspace decide.
 */
export async function resolveMcpTarget(store: Store, principal: Principal, slug: string): Promise<McpTarget> {
  const server = await store.mcpServers.findBySlug(slug);
  if (!server || server.organisation_id !== principal.organisationId) throw new NotFoundError('MCP server', slug);
  if (principal.workspaceId !== null && principal.workspaceId !== server.workspace_id) throw new NotFoundError('MCP server', slug);
  // One round trip for the rest, not three after one another: this runs on every gateway request.
  const [own, integration, capabilities] = await Promise.all([
    principal.userId !== null ? store.mcpServers.userEnabled(server.id, principal.userId) : undefined,
    store.mcpIntegrations.get(server.mcp_integration_id),
    serverCapabilities(store, server),
  ]);
  if (principal.userId !== null && !(own ?? server.default_user_access === 'allow')) {
    throw new ForbiddenError(`You do not have access to MCP server ${slug}`, 'mcp_user_access_denied');
  }
  if (!integration) throw new NotFoundError('MCP server', slug);
  return { server, integration, capabilities };
}

/** Who a session belongs to: the same credential must present it again. */
export function principalKeyOf(principal: Principal): string {
  return `${principal.credential}:${principal.keyId ?? principal.credentialId ?? principal.userId ?? principal.subject ?? ''}`;
}
