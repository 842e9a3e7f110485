import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { isSpecialMetadataKey, SPECIAL_METADATA_COLUMNS } from './special-metadata.js';

/** What logs lists, analytics and exports can be narrowed by. Times are epoch ms, end exclusive. */
export interface LogFilter {
  organisation_id: string;
  workspace_id?: string;
  api_key_id?: string;
  start?: number;
  end?: number;
  /** Exact codes ("429") and classes ("4xx"), any of which matches. */
  status?: string[];
  model?: string;
  provider?: string;
  trace_id?: string;
  cache_status?: string;
  /** The kind of call (request_logs.endpoint). */
  endpoint?: string;
  /** What a prompt completion ran (prompt_id is also what `_prompt` metadata sets). */
  prompt_id?: string;
  prompt_version?: number;
  prompt_label?: string;
  /** Every key must equal its value. */
  metadata?: Record<string, string>;
}

const METADATA_KEY = /^[A-Za-z0-9_.-]{1,128}$/;

export function isMetadataKey(key: string): boolean {
  return METADATA_KEY.test(key);
}

/** Applies a LogFilter to a query over request_logs (optionally under a table alias). */
export function applyLogFilter(db: Knex, query: Knex.QueryBuilder, filter: LogFilter, alias = 'request_logs'): Knex.QueryBuilder {
  const col = (name: string) => `${alias}.${name}`;
  query.where(col('organisation_id'), filter.organisation_id);
  if (filter.workspace_id) query.where(col('workspace_id'), filter.workspace_id);
  if (filter.api_key_id) query.where(col('api_key_id'), filter.api_key_id);
  if (filter.start !== undefined) query.where(col('created_at'), '>=', filter.start);
  if (filter.end !== undefined) query.where(col('created_at'), '<', filter.end);
  if (filter.model) query.where(col('model'), filter.model);
  if (filter.provider) query.where(col('provider'), filter.provider);
  if (filter.trace_id) query.where(col('trace_id'), filter.trace_id);
  if (filter.cache_status) query.where(col('cache_status'), filter.cache_status);
  if (filter.endpoint) query.where(col('endpoint'), filter.endpoint);
  if (filter.prompt_id) query.where(col('prompt_id'), filter.prompt_id);
  if (filter.prompt_version !== undefined) query.where(col('prompt_version'), filter.prompt_version);
  if (filter.prompt_label) query.where(col('prompt_label'), filter.prompt_label);
  if (filter.status?.length) {
    const statuses = filter.status;
    query.where((q) => {
      for (const status of statuses) {
        const klass = /^([1-5])xx$/i.exec(status);
        if (klass) q.orWhereBetween(col('status'), [Number(klass[1]) * 100, Number(klass[1]) * 100 + 99]);
        else q.orWhere(col('status'), Number(status));
      }
    });
  }
  // Special keys have columns of their own; the rest are read from the JSON.
  const metadata: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    if (isSpecialMetadataKey(key)) query.where(col(SPECIAL_METADATA_COLUMNS[key]), value);
    else metadata.push([key, value]);
  }
  if (metadata.length) {
    if (dialectOf(db) === 'postgres') {
      // Containment uses the GIN index.
      query.whereRaw(`${col('metadata')} @> ?::jsonb`, [JSON.stringify(Object.fromEntries(metadata))]);
    } else {
      for (const [key, value] of metadata) {
        // Keys are checked against METADATA_KEY before they get here, so the path cannot break out.
        query.whereRaw(`json_extract(${col('metadata')}, ?) = ?`, [`$."${key}"`, value]);
      }
    }
  }
  return query;
}
