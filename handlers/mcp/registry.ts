import { integrationEntry, registryCatalog, registryPage, type RegistryEntry } from '../../gateway/mcp/registry.js';
import { principalOf } from '../../core/call.js';
import { query, type Handler } from '../types.js';
import { targetWorkspaceId } from '../workspace-target.js';

/** Enough for any organisation's own integrations; the registry is a browsing list. */
const MAX_INTEGRATIONS = 1000;

/** MCP servers a workspace can add: the organisation's integrations it may use (newest first), then the curated catalog. */
export const listMcpRegistry: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { workspace_id, limit, cursor } = query<'listMcpRegistry'>(c);
  const workspaceId = await targetWorkspaceId(call, principal, workspace_id);
  const integrations = await call.services.store.mcpIntegrations.list(principal.organisationId, { workspace_id: workspaceId }, { limit: MAX_INTEGRATIONS });
  const entries: RegistryEntry[] = [...integrations.data.map(integrationEntry), ...registryCatalog()];
  return { body: registryPage(entries, limit ?? 20, cursor) };
};
