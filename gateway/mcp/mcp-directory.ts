/**
 * MCP servers as the gateway reads them on every request: the server by slug, its integration and
 * capabilities, each person's access, the guardrails mapped to it, and the sessions. From memory,
 * emptied whenever an MCP server, integration or guardrail mapping is written or synced (the
 * `mcp_servers` topic) or a session ends (`mcp_sessions`), across instances with Redis, so a
 * gateway request makes no store round trip before it reaches the upstream.
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { McpGuardrailMapping } from '../../store/repositories/mcp-guardrail-servers.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';
import type { McpSessionRecord } from '../../store/repositories/mcp-sessions.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { SAVED_RESOURCE_TOPICS } from '../saved-resources-store.js';
import { serverCapabilities, type ServerCapability } from './server-capabilities.js';

export const MCP_SERVERS_TOPIC = 'mcp_servers';
/** Published when gateway sessions end (DELETE of a session, or of a server's connections). */
export const MCP_SESSIONS_TOPIC = 'mcp_sessions';

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
  private readonly guardrails = new InvalidatedCache<{ mappings: McpGuardrailMapping[] }>(10_000, TTL_MS);
  private readonly sessions = new InvalidatedCache<McpSessionRecord>(100_000, TTL_MS);

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
  ) {
    const clear = () => {
      this.servers.clear();
      this.access.clear();
      this.guardrails.clear();
      this.sessions.clear();
    };
    bus.subscribe(MCP_SERVERS_TOPIC, clear);
    // A session is written once, at initialize; only its end (or its server's) changes it.
    bus.subscribe(MCP_SESSIONS_TOPIC, () => this.sessions.clear());
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

  /** A gateway session by id (any instance may have opened it). */
  session(id: string): Promise<McpSessionRecord | undefined> {
    return this.sessions.get(id, () => this.store.mcpSessions.get(id));
  }

  /** The guardrails mapped to a server's tool calls. */
  async guardrailMappings(serverId: string): Promise<McpGuardrailMapping[]> {
    const entry = await this.guardrails.get(serverId, async () => ({ mappings: await this.store.mcpGuardrailServers.forServer(serverId) }));
    return entry?.mappings ?? [];
  }
}
