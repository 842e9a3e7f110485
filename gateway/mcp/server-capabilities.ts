import type { McpCapabilityRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import type { Store } from '../../store/store.js';

export interface ServerCapability {
  record: McpCapabilityRecord;
  /** On for this server: the integration enables it and the server does not turn it off. */
  enabled: boolean;
}

/** The integration's capabilities as one server narrows them (a server can turn off, never on). */
export async function serverCapabilities(store: Store, server: McpServerRecord): Promise<ServerCapability[]> {
  const [items, flags] = await Promise.all([store.mcpIntegrations.capabilities(server.mcp_integration_id), store.mcpServers.capabilityFlags(server.id)]);
  const own = new Map(flags.map((flag) => [`${flag.type}\u0000${flag.name}`, flag.enabled]));
  return items.map((record) => ({ record, enabled: record.enabled && own.get(`${record.type}\u0000${record.name}`) !== false }));
}
