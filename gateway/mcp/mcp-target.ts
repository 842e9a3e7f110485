import type { Principal } from '../../core/auth/principal.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import type { McpDirectory } from './mcp-directory.js';
import type { ServerCapability } from './server-capabilities.js';

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
export async function resolveMcpTarget(directory: McpDirectory, principal: Principal, slug: string): Promise<McpTarget> {
  const entry = await directory.bySlug(slug);
  if (!entry || entry.server.organisation_id !== principal.organisationId) throw new NotFoundError('MCP server', slug);
  const { server } = entry;
  if (principal.workspaceId !== null && principal.workspaceId !== server.workspace_id) throw new NotFoundError('MCP server', slug);
  if (principal.userId !== null && !((await directory.userEnabled(server.id, principal.userId)) ?? server.default_user_access === 'allow')) {
    throw new ForbiddenError(`You do not have access to MCP server ${slug}`, 'mcp_user_access_denied');
  }
  return entry;
}

/** Who a session belongs to: the same credential must present it again. */
export function principalKeyOf(principal: Principal): string {
  return `${principal.credential}:${principal.keyId ?? principal.credentialId ?? principal.userId ?? principal.subject ?? ''}`;
}
