import type { components } from '../../generated/types.js';
import type { McpCapabilityRecord, McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';

type McpIntegration = components['schemas']['McpIntegration'];
type McpCapability = components['schemas']['McpCapability'];
type McpServer = components['schemas']['McpServer'];

/** The public shape: configurations as stored, secrets masked (the sealed column never leaves). */
export function presentMcpIntegration(record: McpIntegrationRecord): McpIntegration {
  return {
    id: record.id,
    object: 'mcp-integration',
    name: record.name,
    slug: record.slug,
    description: record.description,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    type: record.workspace_id === null ? 'organisation' : 'workspace',
    url: record.url,
    transport: record.transport,
    auth_type: record.auth_type,
    configurations: record.configurations,
    global_workspace_access: record.global_workspace_access,
    status: record.status,
    sync_status: record.sync_status,
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}

export function presentMetadata(record: Pick<McpIntegrationRecord, 'server_name' | 'server_version' | 'protocol_version' | 'capability_flags' | 'sync_status' | 'last_synced_at' | 'sync_error'>) {
  return {
    server_name: record.server_name,
    server_version: record.server_version,
    protocol_version: record.protocol_version,
    capability_flags: record.capability_flags,
    sync_status: record.sync_status,
    last_synced_at: record.last_synced_at,
    sync_error: record.sync_error,
  };
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const obj = (value: unknown): Record<string, unknown> | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

export function presentCapability(record: McpCapabilityRecord, enabled = record.enabled, integrationEnabled?: boolean): McpCapability {
  const d = record.definition;
  return {
    name: record.name,
    type: record.type,
    title: str(d.title),
    description: str(d.description),
    enabled,
    ...(integrationEnabled === undefined ? {} : { integration_enabled: integrationEnabled }),
    input_schema: obj(d.input_schema),
    output_schema: obj(d.output_schema),
    annotations: obj(d.annotations),
    arguments: Array.isArray(d.arguments) ? (d.arguments as Array<Record<string, unknown>>) : null,
    uri: str(d.uri),
    uri_template: str(d.uri_template),
    mime_type: str(d.mime_type),
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}

/** A capability list with the counts by type the console shows. */
export function capabilityList(items: McpCapability[]) {
  const count = (type: McpCapability['type']) => {
    const ofType = items.filter((item) => item.type === type);
    return { total: ofType.length, enabled: ofType.filter((item) => item.enabled).length };
  };
  return {
    data: items,
    counts: { tools: count('tool'), prompts: count('prompt'), resources: count('resource'), resource_templates: count('resource_template') },
    total: items.length,
    has_more: false,
  };
}

export function presentMcpServer(record: McpServerRecord, integration: McpIntegrationRecord, publicUrl: string): McpServer {
  return {
    id: record.id,
    object: 'mcp-server',
    slug: record.slug,
    name: record.name,
    status: record.status,
    description: record.description,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    mcp_integration_id: integration.id,
    mcp_integration_slug: integration.slug,
    mcp_integration_url: integration.url,
    transport: integration.transport,
    auth_type: integration.auth_type,
    default_user_access: record.default_user_access,
    relay_logging: record.relay_logging,
    relay_sampling: record.relay_sampling,
    relay_elicitation: record.relay_elicitation,
    url: `${publicUrl}/${record.slug}/mcp`,
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}
