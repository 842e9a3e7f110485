import type { Knex } from 'knex';

/** A gateway session: what any instance needs to answer its next request. */
export interface McpSessionRecord {
  id: string;
  mcp_server_id: string;
  organisation_id: string;
  workspace_id: string;
  /** Who opened it (credential kind and id); the session answers only to the same caller. */
  principal_key: string;
  user_id: string | null;
  /** The upstream server's Mcp-Session-Id, when it issued one. */
  upstream_session_id: string | null;
  protocol_version: string | null;
  /** What the MCP client declared at initialize (JSON text): which server-to-client requests gw may relay to it. */
  client_capabilities: string | null;
  /** The version the client negotiated with gw (gw bridges it to the upstream's). */
  client_protocol_version: string | null;
  created_at: string;
  updated_at: string;
}

export class McpSessionsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(record: McpSessionRecord): Promise<void> {
    await this.db('mcp_sessions').insert(record);
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    return (await this.db('mcp_sessions').where({ id }).first()) as McpSessionRecord | undefined;
  }

  async delete(id: string): Promise<void> {
    await this.db('mcp_sessions').where({ id }).delete();
  }

  async listForServer(serverId: string, userId?: string): Promise<McpSessionRecord[]> {
    const query = this.db('mcp_sessions').where({ mcp_server_id: serverId });
    if (userId) query.andWhere({ user_id: userId });
    return (await query.orderBy('created_at', 'desc').limit(500)) as McpSessionRecord[];
  }

  /** Ends sessions; answers their ids (the caches of every instance drop them). */
  async deleteForServer(serverId: string, userId?: string): Promise<string[]> {
    const sessions = await this.listForServer(serverId, userId);
    const ids = sessions.map((session) => session.id);
    if (ids.length) await this.db('mcp_sessions').whereIn('id', ids).delete();
    return ids;
  }
}
