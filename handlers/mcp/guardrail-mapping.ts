import { principalOf } from '../../core/call.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { McpGuardrailMapping, McpRunOn } from '../../store/repositories/mcp-guardrail-servers.js';
import { MCP_SERVERS_TOPIC } from '../../gateway/mcp/mcp-directory.js';
import { body, type Handler } from '../types.js';

interface MappingInput {
  capability_ids: string[];
  run_on: McpRunOn;
}

/**
 * PUT /v2/guardrails/{guardrailId}/mcp-servers: the guardrail's MCP server mappings become exactly
 * the ones sent. Each server (id or slug) must be one the caller can see, in the guardrail's
 * workspace when the guardrail belongs to one; each capability id must name a tool the server's
 * integration reported.
 */
export const putGuardrailMcpServers: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { store } = call.services;
  const guardrailId = String(c.request.params.guardrailId);
  const guardrail = await store.guardrails.find(principal.organisationId, guardrailId);
  if (!guardrail || (principal.workspaceId !== null && guardrail.workspace_id !== null && guardrail.workspace_id !== principal.workspaceId)) {
    throw new NotFoundError('Guardrail', guardrailId);
  }
  const { mcp_servers: wanted } = body<'putGuardrailMcpServers'>(c) as { mcp_servers: Record<string, MappingInput> };
  const mappings: McpGuardrailMapping[] = [];
  for (const [key, entry] of Object.entries(wanted)) {
    const param = `mcp_servers.${key}`;
    const server = await store.mcpServers.find(principal.organisationId, key);
    if (!server || (principal.workspaceId !== null && server.workspace_id !== principal.workspaceId)) {
      throw new ValidationError(`No MCP server ${key}`, param, 'unknown_mcp_server');
    }
    if (guardrail.workspace_id !== null && guardrail.workspace_id !== server.workspace_id) {
      throw new ValidationError(`Guardrail ${guardrail.slug} belongs to another workspace than MCP server ${server.slug}`, param, 'guardrail_workspace_mismatch');
    }
    const tools = new Set((await store.mcpIntegrations.capabilities(server.mcp_integration_id)).filter((item) => item.type === 'tool').map((item) => item.name));
    entry.capability_ids.forEach((name, index) => {
      if (!tools.has(name)) throw new ValidationError(`MCP server ${server.slug} has no tool ${name}`, `${param}.capability_ids[${index}]`, 'unknown_capability');
    });
    if (mappings.some((mapping) => mapping.mcp_server_id === server.id)) {
      throw new ValidationError(`MCP server ${server.slug} is named twice (by id and by slug)`, param, 'duplicate_mcp_server');
    }
    mappings.push({ guardrail_id: guardrail.id, mcp_server_id: server.id, capability_ids: entry.capability_ids, run_on: entry.run_on });
  }
  const now = new Date(call.services.now()).toISOString();
  const changes = await store.transaction((tx) => tx.mcpGuardrailServers.replaceForGuardrail(guardrail.id, principal.organisationId, mappings, now));
  // The gateway reads the mappings from memory (gateway/mcp/mcp-directory.ts).
  await call.services.bus.publish(MCP_SERVERS_TOPIC, '*');
  return { body: { changed: changes.added + changes.updated + changes.removed > 0, ...changes } };
};
