import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpCapabilityType, McpIntegrationRecord, McpSyncOutcome } from '../../store/repositories/mcp-integrations.js';
import type { Store } from '../../store/store.js';
import type { McpUpstreams } from './mcp-upstreams.js';

export interface ReportedCapability {
  type: McpCapabilityType;
  name: string;
  definition: Record<string, unknown>;
}

/** Lists are paged by the server; a server that pages forever is cut off here. */
const MAX_PAGES = 50;

async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return items;
}

/** What the server offers, as far as its declared capabilities say it offers anything. */
export async function readCapabilities(client: Client, timeoutMs: number): Promise<ReportedCapability[]> {
  const declared = client.getServerCapabilities() ?? {};
  const options = { timeout: timeoutMs };
  const reported: ReportedCapability[] = [];
  if (declared.tools) {
    const tools = await allPages(async (cursor) => {
      const page = await client.listTools(cursor ? { cursor } : undefined, options);
      return { items: page.tools, nextCursor: page.nextCursor };
    });
    for (const tool of tools) {
      reported.push({
        type: 'tool',
        name: tool.name,
        definition: { title: tool.title ?? tool.annotations?.title ?? null, description: tool.description ?? null, input_schema: tool.inputSchema, output_schema: tool.outputSchema ?? null, annotations: tool.annotations ?? null, icons: tool.icons ?? null },
      });
    }
  }
  if (declared.prompts) {
    const prompts = await allPages(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, options);
      return { items: page.prompts, nextCursor: page.nextCursor };
    });
    for (const prompt of prompts) {
      reported.push({ type: 'prompt', name: prompt.name, definition: { title: prompt.title ?? null, description: prompt.description ?? null, arguments: prompt.arguments ?? [], icons: prompt.icons ?? null } });
    }
  }
  if (declared.resources) {
    const resources = await allPages(async (cursor) => {
      const page = await client.listResources(cursor ? { cursor } : undefined, options);
      return { items: page.resources, nextCursor: page.nextCursor };
    });
    for (const resource of resources) {
      reported.push({
        type: 'resource',
        name: resource.uri,
        definition: { title: resource.title ?? resource.name ?? null, description: resource.description ?? null, uri: resource.uri, mime_type: resource.mimeType ?? null, size: resource.size ?? null },
      });
    }
    const templates = await allPages(async (cursor) => {
      const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, options);
      return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    });
    for (const template of templates) {
      reported.push({
        type: 'resource_template',
        name: template.uriTemplate,
        definition: { title: template.title ?? template.name ?? null, description: template.description ?? null, uri_template: template.uriTemplate, mime_type: template.mimeType ?? null },
      });
    }
  }
  return reported;
}

/**
 * Connects to the integration's server with the MCP SDK, reads what it offers and stores it.
 * A failure is recorded (sync_status failed, sync_error) rather than thrown: the integration
 * stays saved and can be synced again.
 */
export async function syncCapabilities(store: Store, upstreams: McpUpstreams, integration: McpIntegrationRecord, now: () => number): Promise<McpSyncOutcome> {
  const at = () => new Date(now()).toISOString();
  let outcome: McpSyncOutcome;
  try {
    const connection = await upstreams.connect(integration);
    try {
      const reported = await readCapabilities(connection.client, upstreams.timeoutMs);
      const server = connection.client.getServerVersion();
      outcome = {
        server_name: server?.name ?? null,
        server_version: server?.version ?? null,
        protocol_version: connection.protocolVersion ?? null,
        capability_flags: (connection.client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null,
        sync_status: 'synced',
        last_synced_at: at(),
        sync_error: null,
      };
      await store.transaction(async (tx) => {
        await tx.mcpIntegrations.replaceCapabilities(integration.id, reported, outcome.last_synced_at);
        await tx.mcpIntegrations.recordSync(integration.id, outcome);
      });
    } finally {
      await connection.close().catch(() => undefined);
    }
  } catch (error) {
    outcome = {
      server_name: integration.server_name,
      server_version: integration.server_version,
      protocol_version: integration.protocol_version,
      capability_flags: integration.capability_flags,
      sync_status: 'failed',
      last_synced_at: at(),
      sync_error: (error instanceof Error ? error.message : String(error)).slice(0, 2000),
    };
    await store.mcpIntegrations.recordSync(integration.id, outcome);
  }
  return outcome;
}
