/**
 * MCP servers as the gateway reads them on every request: the server by slug, its integration and
 * capabilities, and each person's access, from memory, emptied whenever an MCP server or
 * integration is written or synced (the `mcp_servers` topic, across instances with Redis), so a
 * gateway request makes no store round trip to find its server.
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { SAVED_RESOURCE_TOPICS } from '../saved-resources-store.js';
import { serverCapabilities, type ServerCapability } from './server-capabilities.js';

export const MCP_SERVERS_TOPIC = 'mcp_servers';

/** A safety net only: invalidation is what makes changes visible at once. */
const TTL_MS = 5 * 60_000;

export interface McpServerEntry {
  server: McpServerRecord;
  integration: McpIntegrationRecord;
  capabilities: ServerCapability[];
}

export class McpDirectory {
  private readonly servers = new InvalidatedCache<McpServerEntry>(10_000, TTL_MS);
  private readonly access = new InvalidatedCache<{ enabled: boolean | undefined }>(100_000, TTL_MS);

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
  ) {
    const clear = () => {
      this.servers.clear();
      this.access.clear();
    };
    bus.subscribe(MCP_SERVERS_TOPIC, clear);
    // A deleted workspace takes its MCP servers with it.
    bus.subscribe(SAVED_RESOURCE_TOPICS.workspaces, clear);
  }

  /** The server with this slug (slugs are unique across organisations), its integration and capabilities. */
  bySlug(slug: string): Promise<McpServerEntry | undefined> {
    return this.servers.get(slug, async () => {
      const server = await this.store.mcpServers.findBySlug(slug);
      if (!server) return undefined;
      const [integration, capabilities] = await Promise.all([this.store.mcpIntegrations.get(server.mcp_integration_id), serverCapabilities(this.store, server)]);
      return integration ? { server, integration, capabilities } : undefined;
    });
  }

  /** A person's own access setting on a server (undefined: the server's default applies). */
  async userEnabled(serverId: string, userId: string): Promise<boolean | undefined> {
    const entry = await this.access.get(`${serverId}\n${userId}`, async () => ({ enabled: await this.store.mcpServers.userEnabled(serverId, userId) }));
    return entry?.enabled;
  }
}
