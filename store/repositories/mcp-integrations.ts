import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export type McpTransport = 'http' | 'sse';
export type McpAuthType = 'none' | 'headers' | 'oauth_client_credentials';
export type McpSyncStatus = 'pending' | 'synced' | 'failed';
export type McpCapabilityType = 'tool' | 'prompt' | 'resource' | 'resource_template';

export interface McpIntegrationRecord {
  id: string;
  organisation_id: string;
  /** The owning workspace; null for an organisation's integration. */
  workspace_id: string | null;
  name: string;
  slug: string;
  description: string | null;
  url: string;
  transport: McpTransport;
  auth_type: McpAuthType;
  /** custom_headers, client_id, token_url, scope, with secret values masked. */
  configurations: Record<string, unknown>;
  /** Sealed JSON of the secret values by path (store/secret-fields.ts); null when there are none. */
  secrets: string | null;
  global_workspace_access: boolean;
  status: 'active';
  server_name: string | null;
  server_version: string | null;
  protocol_version: string | null;
  capability_flags: Record<string, unknown> | null;
  sync_status: McpSyncStatus;
  last_synced_at: string | null;
  sync_error: string | null;
  created_at: string;
  updated_at: string;
}

export type NewMcpIntegration = Pick<
  McpIntegrationRecord,
  'organisation_id' | 'workspace_id' | 'name' | 'slug' | 'description' | 'url' | 'transport' | 'auth_type' | 'configurations' | 'secrets' | 'global_workspace_access'
>;

/** What a sync learnt about the server. */
export interface McpSyncOutcome {
  server_name: string | null;
  server_version: string | null;
  protocol_version: string | null;
  capability_flags: Record<string, unknown> | null;
  sync_status: McpSyncStatus;
  last_synced_at: string;
  sync_error: string | null;
}

export interface McpCapabilityRecord {
  type: McpCapabilityType;
  name: string;
  /** The server's description of it (title, description, input_schema, arguments, uri, ...). */
  definition: Record<string, unknown>;
  enabled: boolean;
  present: boolean;
  created_at: string;
  updated_at: string;
}

export interface McpWorkspaceAccessRecord {
  workspace_id: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

function toRecord(row: Record<string, unknown>): McpIntegrationRecord {
  return {
    ...(row as unknown as McpIntegrationRecord),
    global_workspace_access: Boolean(row.global_workspace_access),
    configurations: fromJson(row.configurations, {}),
    capability_flags: fromJson(row.capability_flags, null),
  };
}

function toRow(changes: Partial<McpIntegrationRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...changes };
  if ('configurations' in changes) row.configurations = toJson(changes.configurations);
  if ('capability_flags' in changes) row.capability_flags = toJson(changes.capability_flags);
  return row;
}

const capabilityOf = (row: Record<string, unknown>): McpCapabilityRecord => ({
  type: row.type as McpCapabilityType,
  name: row.name as string,
  definition: fromJson(row.definition, {}),
  enabled: Boolean(row.enabled),
  present: Boolean(row.present),
  created_at: row.created_at as string,
  updated_at: row.updated_at as string,
});

export class McpIntegrationsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewMcpIntegration, now: string): Promise<McpIntegrationRecord> {
    const record: McpIntegrationRecord = {
      ...input,
      id: randomUUID(),
      status: 'active',
      server_name: null,
      server_version: null,
      protocol_version: null,
      capability_flags: null,
      sync_status: 'pending',
      last_synced_at: null,
      sync_error: null,
      created_at: now,
      updated_at: now,
    };
    await this.db('mcp_integrations').insert(toRow(record));
    return record;
  }

  /** By id or slug. */
  async find(organisationId: string, idOrSlug: string): Promise<McpIntegrationRecord | undefined> {
    const row = await this.db('mcp_integrations')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async get(id: string): Promise<McpIntegrationRecord | undefined> {
    const row = await this.db('mcp_integrations').where({ id }).first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('mcp_integrations').where({ organisation_id: organisationId, slug }).first('id'));
  }

  /** Newest first; with a workspace, only those it owns or may use. */
  list(organisationId: string, filter: { workspace_id?: string; search?: string }, page: PageRequest): Promise<Page<McpIntegrationRecord>> {
    const query = this.db('mcp_integrations').where({ organisation_id: organisationId });
    if (filter.workspace_id) this.visibleTo(query, filter.workspace_id);
    if (filter.search) {
      const like = `%${filter.search.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      query.andWhere((q) => q.whereRaw("lower(name) like lower(?) escape '\\'", [like]).orWhereRaw("lower(slug) like lower(?) escape '\\'", [like]));
    }
    return paginate(query, page, toRecord);
  }

  /** Owned by the workspace, open to every workspace, or enabled for it. */
  private visibleTo(query: Knex.QueryBuilder, workspaceId: string): void {
    query.andWhere((q) =>
      q
        .where({ workspace_id: workspaceId })
        .orWhere((o) => o.whereNull('workspace_id').andWhere({ global_workspace_access: true }))
        .orWhereIn('id', this.db('mcp_integration_workspaces').select('mcp_integration_id').where({ workspace_id: workspaceId, enabled: true })),
    );
  }

  async allows(integration: McpIntegrationRecord, workspaceId: string): Promise<boolean> {
    if (integration.workspace_id !== null) return integration.workspace_id === workspaceId;
    if (integration.global_workspace_access) return true;
    return Boolean(
      await this.db('mcp_integration_workspaces').where({ mcp_integration_id: integration.id, workspace_id: workspaceId, enabled: true }).first('workspace_id'),
    );
  }

  async update(id: string, changes: Partial<McpIntegrationRecord>, now: string): Promise<void> {
    await this.db('mcp_integrations').where({ id }).update({ ...toRow(changes), updated_at: now });
  }

  /** A sync's outcome: metadata only, so it does not count as an edit. */
  async recordSync(id: string, outcome: McpSyncOutcome): Promise<void> {
    await this.db('mcp_integrations').where({ id }).update(toRow(outcome));
  }

  async delete(id: string): Promise<void> {
    await this.db('mcp_integrations').where({ id }).delete();
  }

  async workspaces(integrationId: string): Promise<McpWorkspaceAccessRecord[]> {
    const rows = await this.db('mcp_integration_workspaces').where({ mcp_integration_id: integrationId }).orderBy('workspace_id');
    return rows.map((row: Record<string, unknown>) => ({
      workspace_id: row.workspace_id as string,
      enabled: Boolean(row.enabled),
      created_at: row.created_at as string,
      updated_at: row.updated_at as string,
    }));
  }

  /** Sets the listed workspaces' flags; with `replace`, workspaces not listed lose their entry. */
  async setWorkspaces(integrationId: string, entries: Array<{ workspace_id: string; enabled: boolean }>, replace: boolean, now: string): Promise<void> {
    if (replace) await this.db('mcp_integration_workspaces').where({ mcp_integration_id: integrationId }).delete();
    for (const entry of entries) {
      const key = { mcp_integration_id: integrationId, workspace_id: entry.workspace_id };
      const updated = await this.db('mcp_integration_workspaces').where(key).update({ enabled: entry.enabled, updated_at: now });
      if (!updated) await this.db('mcp_integration_workspaces').insert({ ...key, enabled: entry.enabled, created_at: now, updated_at: now });
    }
  }

  /** Capabilities the last sync saw (or every one ever seen, with `includeGone`). */
  async capabilities(integrationId: string, includeGone = false): Promise<McpCapabilityRecord[]> {
    const query = this.db('mcp_capabilities').where({ mcp_integration_id: integrationId });
    if (!includeGone) query.andWhere({ present: true });
    return (await query.orderBy([{ column: 'type' }, { column: 'name' }])).map(capabilityOf);
  }

  /**
   * Replaces what the server reports: new capabilities come in enabled, known ones keep their
   * flag and take the new definition, ones no longer reported are marked gone (flag kept).
   */
  async replaceCapabilities(integrationId: string, reported: Array<{ type: McpCapabilityType; name: string; definition: Record<string, unknown> }>, now: string): Promise<void> {
    // Written first: on SQLite a transaction that reads first must upgrade its lock to write, which
    // fails at once (SQLITE_BUSY) when another process (a gw worker, an instance) committed meanwhile.
    await this.db('mcp_capabilities').where({ mcp_integration_id: integrationId }).update({ present: false });
    const known = new Map((await this.capabilities(integrationId, true)).map((c) => [`${c.type}\u0000${c.name}`, c]));
    for (const item of reported) {
      const key = { mcp_integration_id: integrationId, type: item.type, name: item.name };
      if (known.has(`${item.type}\u0000${item.name}`)) {
        await this.db('mcp_capabilities').where(key).update({ definition: toJson(item.definition), present: true, updated_at: now });
      } else {
        await this.db('mcp_capabilities').insert({ ...key, definition: toJson(item.definition), enabled: true, present: true, created_at: now, updated_at: now });
      }
    }
  }

  /** Sets flags; answers the entries that name no capability of the integration. */
  async setCapabilityFlags(integrationId: string, flags: Array<{ type: string; name: string; enabled: boolean }>, now: string): Promise<void> {
    for (const flag of flags) {
      await this.db('mcp_capabilities')
        .where({ mcp_integration_id: integrationId, type: flag.type, name: flag.name })
        .update({ enabled: flag.enabled, updated_at: now });
    }
  }
}
