import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface McpServerRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  mcp_integration_id: string;
  name: string;
  slug: string;
  description: string | null;
  default_user_access: 'allow' | 'deny';
  /** Whether gw relays the upstream's log messages (and logging/setLevel) to clients. */
  relay_logging: boolean;
  /** Whether gw relays the upstream's sampling/createMessage requests to clients. */
  relay_sampling: boolean;
  /** Whether gw relays the upstream's elicitation/create requests to clients. */
  relay_elicitation: boolean;
  status: 'active';
  created_at: string;
  updated_at: string;
}

export type NewMcpServer = Pick<McpServerRecord, 'organisation_id' | 'workspace_id' | 'mcp_integration_id' | 'name' | 'slug' | 'description' | 'default_user_access'> &
  Partial<Pick<McpServerRecord, 'relay_logging' | 'relay_sampling' | 'relay_elicitation'>>;

export interface McpUserAccessRecord {
  user_id: string;
  enabled: boolean;
}

// SQLite answers booleans as 0 and 1.
const toRecord = (row: Record<string, unknown>): McpServerRecord => ({
  ...(row as unknown as McpServerRecord),
  relay_logging: Boolean(row.relay_logging),
  relay_sampling: Boolean(row.relay_sampling),
  relay_elicitation: Boolean(row.relay_elicitation),
});

export class McpServersRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewMcpServer, now: string): Promise<McpServerRecord> {
    const record: McpServerRecord = { relay_logging: true, relay_sampling: true, relay_elicitation: true, ...input, id: randomUUID(), status: 'active', created_at: now, updated_at: now };
    await this.db('mcp_servers').insert(record);
    return record;
  }

  /** By id or slug, within an organisation. */
  async find(organisationId: string, idOrSlug: string): Promise<McpServerRecord | undefined> {
    const row = await this.db('mcp_servers')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  /** By slug alone: the MCP gateway's path names no organisation. */
  async findBySlug(slug: string): Promise<McpServerRecord | undefined> {
    const row = await this.db('mcp_servers').where({ slug }).first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(slug: string): Promise<boolean> {
    return Boolean(await this.db('mcp_servers').where({ slug }).first('id'));
  }

  list(organisationId: string, filter: { workspace_id?: string }, page: PageRequest): Promise<Page<McpServerRecord>> {
    const query = this.db('mcp_servers').where({ organisation_id: organisationId });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    return paginate(query, page, toRecord);
  }

  async countUsing(integrationId: string): Promise<number> {
    const row = (await this.db('mcp_servers').where({ mcp_integration_id: integrationId }).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  async update(id: string, changes: Partial<McpServerRecord>, now: string): Promise<void> {
    await this.db('mcp_servers').where({ id }).update({ ...changes, updated_at: now });
  }

  async delete(id: string): Promise<void> {
    await this.db('mcp_servers').where({ id }).delete();
  }

  /** The server's own capability flags (an entry narrows the integration's). */
  async capabilityFlags(serverId: string): Promise<Array<{ type: string; name: string; enabled: boolean; created_at: string; updated_at: string }>> {
    const rows = await this.db('mcp_server_capabilities').where({ mcp_server_id: serverId });
    return rows.map((row: Record<string, unknown>) => ({ ...(row as { type: string; name: string; created_at: string; updated_at: string }), enabled: Boolean(row.enabled) }));
  }

  async setCapabilityFlags(serverId: string, flags: Array<{ type: string; name: string; enabled: boolean }>, now: string): Promise<void> {
    for (const flag of flags) {
      const key = { mcp_server_id: serverId, type: flag.type, name: flag.name };
      const updated = await this.db('mcp_server_capabilities').where(key).update({ enabled: flag.enabled, updated_at: now });
      if (!updated) await this.db('mcp_server_capabilities').insert({ ...key, enabled: flag.enabled, created_at: now, updated_at: now });
    }
  }

  async userAccess(serverId: string): Promise<McpUserAccessRecord[]> {
    const rows = await this.db('mcp_server_user_access').where({ mcp_server_id: serverId });
    return rows.map((row: Record<string, unknown>) => ({ user_id: row.user_id as string, enabled: Boolean(row.enabled) }));
  }

  async userEnabled(serverId: string, userId: string): Promise<boolean | undefined> {
    const row = await this.db('mcp_server_user_access').where({ mcp_server_id: serverId, user_id: userId }).first('enabled');
    return row ? Boolean(row.enabled) : undefined;
  }

  async setUserAccess(serverId: string, entries: McpUserAccessRecord[], now: string): Promise<void> {
    for (const entry of entries) {
      const key = { mcp_server_id: serverId, user_id: entry.user_id };
      const updated = await this.db('mcp_server_user_access').where(key).update({ enabled: entry.enabled, updated_at: now });
      if (!updated) await this.db('mcp_server_user_access').insert({ ...key, enabled: entry.enabled, created_at: now, updated_at: now });
    }
  }
}
