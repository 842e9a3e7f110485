/**
 * The rows a self-hosted gw (a data plane) needs to serve one organisation's traffic, as the
 * control plane reads them and as the data plane replaces its own copy with them. Rows travel as
 * stored (API keys hashed, credentials in the `secrets` column sealed); the caller re-seals
 * `secrets` for the transfer and for the data plane's own key (gateway/deployment/).
 */
import type { Knex } from 'knex';
import { dialectOf } from './db.js';

export type SnapshotRow = Record<string, unknown>;
export type SnapshotTables = Record<string, SnapshotRow[]>;

interface SyncedTable {
  name: string;
  /** The primary key's columns. */
  key: readonly string[];
  /** How a row belongs to the organisation: its own column, or its parent's (table.column -> parent id). */
  scope: { column: 'organisation_id' | 'id' } | { column: string; parent: string };
}

/** Parents before children: upserts run in this order, deletes in the reverse. */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  { name: 'organisations', key: ['id'], scope: { column: 'id' } },
  { name: 'workspaces', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'users', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'workspace_members', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'api_keys', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'secret_references', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'secret_reference_workspaces', key: ['secret_reference_id', 'workspace_id'], scope: { column: 'secret_reference_id', parent: 'secret_references' } },
  { name: 'integrations', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'integration_workspaces', key: ['integration_id', 'workspace_id'], scope: { column: 'integration_id', parent: 'integrations' } },
  { name: 'providers', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'configs', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'config_versions', key: ['id'], scope: { column: 'config_id', parent: 'configs' } },
  { name: 'guardrails', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'organisation_guardrail_defaults', key: ['organisation_id', 'phase', 'guardrail_id'], scope: { column: 'organisation_id' } },
  { name: 'guardrail_workspace_exclusions', key: ['organisation_id', 'phase', 'workspace_id'], scope: { column: 'organisation_id' } },
  { name: 'usage_limits_policies', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'rate_limits_policies', key: ['id'], scope: { column: 'organisation_id' } },
  // Prompts and partials (one table), their versions, labels, collections (parents sort first: ids are time-ordered) and shares.
  { name: 'prompt_collections', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'prompt_labels', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'prompts', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'prompt_versions', key: ['id'], scope: { column: 'prompt_id', parent: 'prompts' } },
  { name: 'prompt_shares', key: ['prompt_id', 'workspace_id'], scope: { column: 'prompt_id', parent: 'prompts' } },
  // MCP integrations (credentials in `secrets`), their synced capabilities, servers and access; gateway sessions stay local.
  { name: 'mcp_integrations', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'mcp_integration_workspaces', key: ['mcp_integration_id', 'workspace_id'], scope: { column: 'mcp_integration_id', parent: 'mcp_integrations' } },
  { name: 'mcp_capabilities', key: ['mcp_integration_id', 'type', 'name'], scope: { column: 'mcp_integration_id', parent: 'mcp_integrations' } },
  { name: 'mcp_servers', key: ['id'], scope: { column: 'organisation_id' } },
  { name: 'mcp_server_capabilities', key: ['mcp_server_id', 'type', 'name'], scope: { column: 'mcp_server_id', parent: 'mcp_servers' } },
  { name: 'mcp_server_user_access', key: ['mcp_server_id', 'user_id'], scope: { column: 'mcp_server_id', parent: 'mcp_servers' } },
  { name: 'mcp_guardrail_servers', key: ['guardrail_id', 'mcp_server_id'], scope: { column: 'organisation_id' } },
  // A2A agents (credentials in `secrets`), served at /a2a/{slug}/.
  { name: 'agent_integrations', key: ['id'], scope: { column: 'organisation_id' } },
];

/** Rows per insert: about 30 columns each stays far below either engine's bound-variable limit. */
const INSERT_CHUNK = 50;

const keyOf = (table: SyncedTable, row: SnapshotRow) => table.key.map((column) => String(row[column])).join('\u0000');

/** The same value whichever engine read it: JSON columns are text on SQLite, objects on Postgres; both travel as read. */
function portable(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/** Every synced row of one organisation, in a stable order (so equal data hashes equally). */
export async function readOrganisationSnapshot(db: Knex, organisationId: string): Promise<SnapshotTables> {
  const tables: SnapshotTables = {};
  for (const table of SYNCED_TABLES) {
    const query = db(table.name).select(`${table.name}.*`);
    if ('parent' in table.scope) {
      query.whereIn(`${table.name}.${table.scope.column}`, db(table.scope.parent).select('id').where('organisation_id', organisationId));
    } else {
      query.where(`${table.name}.${table.scope.column}`, organisationId);
    }
    const rows = (await query.orderBy(table.key.map((column) => `${table.name}.${column}`))) as SnapshotRow[];
    tables[table.name] = rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, portable(value)])));
  }
  return tables;
}

/** A value as this engine stores it: JSON as text (pg would turn an array into a Postgres array), booleans as 0/1 on SQLite. */
function storable(value: unknown, sqlite: boolean): unknown {
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  if (sqlite && typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** Ids (primary-key values joined) per table of the rows that were added, changed or removed. */
export type ChangedRows = Record<string, string[]>;

/**
 * Makes the synced tables hold exactly the snapshot's rows, in one transaction: rows missing from
 * it are deleted (children first; rows this store made on its own go too), the rest upserted
 * (parents first). Columns this store does not have are dropped (a control plane on a newer release).
 */
export async function replaceWithSnapshot(db: Knex, tables: SnapshotTables): Promise<ChangedRows> {
  const sqlite = dialectOf(db) === 'sqlite';
  const changed: ChangedRows = {};
  await db.transaction(async (trx) => {
    const existing = new Map<string, Map<string, string>>();
    for (const table of [...SYNCED_TABLES].reverse()) {
      const rows = (await trx(table.name).select()) as SnapshotRow[];
      const incoming = new Set((tables[table.name] ?? []).map((row) => keyOf(table, row)));
      const stale = rows.filter((row) => !incoming.has(keyOf(table, row)));
      for (const row of stale) await trx(table.name).where(Object.fromEntries(table.key.map((column) => [column, row[column]]))).delete();
      changed[table.name] = stale.map((row) => keyOf(table, row));
      existing.set(table.name, new Map(rows.map((row) => [keyOf(table, row), JSON.stringify(Object.values(row).map((v) => storable(portable(v), sqlite)))])));
    }
    for (const table of SYNCED_TABLES) {
      const columns = new Set(Object.keys(await trx(table.name).columnInfo()));
      const before = existing.get(table.name)!;
      const rows = (tables[table.name] ?? []).map((row) =>
        Object.fromEntries(Object.entries(row).filter(([column]) => columns.has(column)).map(([column, value]) => [column, storable(value, sqlite)])),
      );
      const differing = rows.filter((row) => before.get(keyOf(table, row)) !== JSON.stringify(Object.values(row)));
      for (let i = 0; i < differing.length; i += INSERT_CHUNK) {
        const chunk = differing.slice(i, i + INSERT_CHUNK);
        const merge = Object.keys(chunk[0]!).filter((column) => !table.key.includes(column));
        const insert = trx(table.name).insert(chunk).onConflict([...table.key]);
        await (merge.length ? insert.merge(merge) : insert.ignore());
      }
      changed[table.name]!.push(...differing.map((row) => keyOf(table, row)));
    }
  });
  return changed;
}
