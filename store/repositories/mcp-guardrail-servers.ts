import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';

export type McpRunOn = 'beforeToolCall' | 'afterToolCall';

export interface McpGuardrailMapping {
  guardrail_id: string;
  mcp_server_id: string;
  /** Tool names the guardrail runs on; empty: every tool. */
  capability_ids: string[];
  run_on: McpRunOn;
}

export interface MappingChanges {
  added: number;
  updated: number;
  removed: number;
}

const toMapping = (row: Record<string, unknown>): McpGuardrailMapping => ({
  guardrail_id: row.guardrail_id as string,
  mcp_server_id: row.mcp_server_id as string,
  capability_ids: fromJson(row.capability_ids, []),
  run_on: row.run_on as McpRunOn,
});

const sameMapping = (a: McpGuardrailMapping, b: McpGuardrailMapping) =>
  a.run_on === b.run_on && JSON.stringify([...a.capability_ids].sort()) === JSON.stringify([...b.capability_ids].sort());

/** Which guardrails run on which MCP servers' tool calls (PUT /v2/guardrails/{id}/mcp-servers). */
export class McpGuardrailServersRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async forServer(serverId: string): Promise<McpGuardrailMapping[]> {
    return (await this.db('mcp_guardrail_servers').where({ mcp_server_id: serverId }).orderBy('created_at').orderBy('guardrail_id')).map(toMapping);
  }

  async forGuardrail(guardrailId: string): Promise<McpGuardrailMapping[]> {
    return (await this.db('mcp_guardrail_servers').where({ guardrail_id: guardrailId })).map(toMapping);
  }

  /** Makes the guardrail's mappings exactly `wanted`; counts what was added, changed and removed. */
  async replaceForGuardrail(guardrailId: string, organisationId: string, wanted: McpGuardrailMapping[], now: string): Promise<MappingChanges> {
    const existing = new Map((await this.forGuardrail(guardrailId)).map((mapping) => [mapping.mcp_server_id, mapping]));
    const changes: MappingChanges = { added: 0, updated: 0, removed: 0 };
    for (const mapping of wanted) {
      const old = existing.get(mapping.mcp_server_id);
      existing.delete(mapping.mcp_server_id);
      const columns = { capability_ids: toJson(mapping.capability_ids), run_on: mapping.run_on, updated_at: now };
      if (!old) {
        await this.db('mcp_guardrail_servers').insert({ guardrail_id: guardrailId, mcp_server_id: mapping.mcp_server_id, organisation_id: organisationId, ...columns, created_at: now });
        changes.added++;
      } else if (!sameMapping(old, mapping)) {
        await this.db('mcp_guardrail_servers').where({ guardrail_id: guardrailId, mcp_server_id: mapping.mcp_server_id }).update(columns);
        changes.updated++;
      }
    }
    if (existing.size) {
      await this.db('mcp_guardrail_servers').where({ guardrail_id: guardrailId }).whereIn('mcp_server_id', [...existing.keys()]).delete();
      changes.removed = existing.size;
    }
    return changes;
  }
}
