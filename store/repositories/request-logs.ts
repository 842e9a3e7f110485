import type { Knex } from 'knex';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { SqliteWriterThread } from '../sqlite-writer-thread.js';
import { fromJson, toJson } from '../json-column.js';
import { writeLogRows, type LogWriteOptions } from '../log-batch-write.js';
import { LogAnalytics } from '../log-analytics.js';
import { applyLogFilter, type LogFilter } from '../log-filter.js';
import { FACT_COLUMNS, rowDeltas } from '../rollups/rollup-deltas.js';
import { applyRollupDeltas, pruneEmptyRollups } from '../rollups/rollup-write.js';
import { readMetadataRollupKeys } from '../rollups/metadata-keys.js';
import { afterKeyset, paginate, type Page, type PageRequest } from '../pagination.js';

export type LogSource = 'gateway' | 'custom';

export interface RequestLogRecord extends RequestLogEntry {
  source: LogSource;
  /** What a prompt completion ran (prompt_id also from the `_prompt` metadata key). */
  prompt_id: string | null;
  prompt_version: number | null;
  prompt_label: string | null;
}

/** Columns a list answers with: everything but the (possibly large) bodies and headers. */
const SUMMARY_COLUMNS = [
  'id', 'endpoint', 'organisation_id', 'workspace_id', 'api_key_id', 'auth_subject', 'source', 'trace_id', 'span_id', 'parent_span_id', 'span_name',
  'created_at', 'config_id', 'prompt_id', 'prompt_version', 'prompt_label', 'provider', 'model', 'status', 'latency_ms', 'first_byte_ms', 'stream', 'prompt_tokens',
  'completion_tokens', 'total_tokens', 'cost', 'cost_unpriced', 'cache_status', 'retry_count', 'route', 'metadata', 'error',
];

function isCacheHit(status: RequestLogEntry['cache_status']): boolean {
  return status === 'HIT' || status === 'SEMANTIC HIT';
}

/** Rescued: answered successfully after at least one retry or a fallback to a later target. */
function isRescued(entry: RequestLogEntry): boolean {
  return entry.status < 400 && (entry.retry_count > 0 || entry.route.length > 1);
}

export function toLogRow(entry: RequestLogEntry, source: LogSource): Record<string, unknown> {
  return {
    id: entry.id,
    endpoint: entry.endpoint,
    organisation_id: entry.organisation_id,
    workspace_id: entry.workspace_id,
    api_key_id: entry.api_key_id || null,
    auth_subject: entry.auth_subject ?? null,
    source,
    trace_id: entry.trace_id,
    span_id: entry.span_id,
    parent_span_id: entry.parent_span_id,
    span_name: entry.span_name,
    created_at: entry.created_at,
    config_id: entry.config_id,
    provider: entry.provider,
    model: entry.model,
    status: entry.status,
    latency_ms: Math.round(entry.latency_ms),
    first_byte_ms: entry.first_byte_ms === null ? null : Math.round(entry.first_byte_ms),
    stream: entry.stream,
    prompt_tokens: entry.prompt_tokens,
    completion_tokens: entry.completion_tokens,
    total_tokens: entry.total_tokens,
    cost: entry.cost,
    cost_unpriced: entry.cost_unpriced === true,
    cache_status: entry.cache_status,
    cache_hit: isCacheHit(entry.cache_status),
    retry_count: entry.retry_count,
    is_error: entry.status >= 400,
    rescued: isRescued(entry),
    user_id: entry.metadata._user ?? null,
    environment: entry.metadata._environment ?? null,
    end_organisation: entry.metadata._organisation ?? null,
    // A prompt completion names its prompt; `_prompt` metadata means the same.
    prompt_id: entry.prompt?.id ?? entry.metadata._prompt ?? null,
    prompt_version: entry.prompt?.version ?? null,
    prompt_label: entry.prompt?.label ?? null,
    route: toJson(entry.route),
    metadata: toJson(entry.metadata),
    request_headers: toJson(entry.request_headers),
    request_body: toJson(entry.request_body),
    response_body: toJson(entry.response_body),
    error: toJson(entry.error),
    guardrail_results: toJson(entry.guardrail_results),
  };
}

export function toLogRecord(row: Record<string, unknown>): RequestLogRecord {
  return {
    id: row.id as string,
    endpoint: row.endpoint as RequestLogEntry['endpoint'],
    organisation_id: row.organisation_id as string,
    workspace_id: row.workspace_id as string,
    api_key_id: (row.api_key_id as string | null) ?? '',
    auth_subject: (row.auth_subject as string | null) ?? null,
    source: row.source as LogSource,
    trace_id: row.trace_id as string,
    span_id: (row.span_id as string | null) ?? null,
    parent_span_id: (row.parent_span_id as string | null) ?? null,
    span_name: (row.span_name as string | null) ?? null,
    created_at: Number(row.created_at),
    config_id: (row.config_id as string | null) ?? null,
    prompt_id: (row.prompt_id as string | null) ?? null,
    prompt_version: row.prompt_version === null || row.prompt_version === undefined ? null : Number(row.prompt_version),
    prompt_label: (row.prompt_label as string | null) ?? null,
    provider: (row.provider as string | null) ?? null,
    model: (row.model as string | null) ?? null,
    status: Number(row.status),
    latency_ms: Number(row.latency_ms),
    first_byte_ms: row.first_byte_ms === null || row.first_byte_ms === undefined ? null : Number(row.first_byte_ms),
    stream: Boolean(row.stream),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    total_tokens: Number(row.total_tokens),
    cost: Number(row.cost),
    cost_unpriced: Boolean(row.cost_unpriced),
    cache_status: row.cache_status as RequestLogEntry['cache_status'],
    retry_count: Number(row.retry_count),
    route: fromJson(row.route, []),
    metadata: fromJson(row.metadata, {}),
    request_headers: fromJson(row.request_headers, {}),
    request_body: fromJson(row.request_body, null),
    response_body: fromJson(row.response_body, null),
    error: fromJson(row.error, null),
    guardrail_results: fromJson(row.guardrail_results, null),
  };
}

/** Gateway request logs through a SQLite writer thread: the same rows, written off the event loop. */
export class ThreadedRequestLogWriter {
  constructor(
    private readonly thread: Pick<SqliteWriterThread, 'writeLogs' | 'close'>,
    private readonly options: LogWriteOptions,
  ) {}

  insertMany(entries: RequestLogEntry[]): Promise<void> {
    return this.thread.writeLogs(entries.map((entry) => toLogRow(entry, 'gateway')), this.options);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

export class RequestLogsRepository {
  constructor(
    private readonly db: Knex | Knex.Transaction,
    private readonly options: LogWriteOptions = { outbox: false },
  ) {}

  /**
   * One transaction holding the rows and their rollup deltas, so a batch lands whole or not at
   * all; rows already stored (a batch written again) are skipped and counted once. `rollUp: false`
   * stores them for the rollup folder to count later (LogWriteOptions.rollUp).
   */
  async insertMany(entries: RequestLogEntry[], source: LogSource = 'gateway', { rollUp = true } = {}): Promise<void> {
    await writeLogRows(this.db, entries.map((entry) => toLogRow(entry, source)), { ...this.options, rollUp });
  }

  async get(filter: Pick<LogFilter, 'organisation_id' | 'workspace_id'>, id: string): Promise<RequestLogRecord | undefined> {
    const query = this.db('request_logs').where({ id, organisation_id: filter.organisation_id });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    const row = await query.first();
    return row ? toLogRecord(row) : undefined;
  }

  /** The log with this id, else the newest log of the request whose trace id it is (its x-gw-trace-id). */
  async getByIdOrTraceId(filter: Pick<LogFilter, 'organisation_id' | 'workspace_id'>, id: string): Promise<RequestLogRecord | undefined> {
    const byId = await this.get(filter, id);
    if (byId) return byId;
    const query = this.db('request_logs').where({ trace_id: id, organisation_id: filter.organisation_id });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    const row = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').first();
    return row ? toLogRecord(row) : undefined;
  }

  list(filter: LogFilter, page: PageRequest): Promise<Page<RequestLogRecord>> {
    const query = applyLogFilter(this.db as Knex, this.db('request_logs').select(SUMMARY_COLUMNS), filter);
    return paginate(query, page, (row: Record<string, unknown>) => toLogRecord(row));
  }

  /** Oldest first after `after` (created_at, id): the order exports write in, so they can resume. */
  async pageAscending(filter: LogFilter, after: [number, string] | null, limit: number): Promise<RequestLogRecord[]> {
    const query = applyLogFilter(this.db as Knex, this.db('request_logs').select('*'), filter);
    if (after) {
      const [at, id] = after;
      afterKeyset(query, '>', 'created_at', at, 'id', id);
    }
    const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit);
    return rows.map(toLogRecord);
  }

  /** How many rows match: from the rollups where the filter allows (store/log-analytics.ts). */
  count(filter: LogFilter): Promise<number> {
    return new LogAnalytics(this.db as Knex).count(filter);
  }

  /**
   * Deletes up to `batch` rows older than `before` (epoch ms) and says how many went, taking
   * what they counted out of the rollups in the same transaction. Small batches keep each
   * statement's locks short; the retention job loops until this returns 0.
   */
  deleteOlderThan(before: number, batch: number): Promise<number> {
    return this.deleteWhere((q) => q.where('created_at', '<', before).limit(batch));
  }

  private async deleteWhere(select: (query: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
    const remove = async (trx: Knex.Transaction) => {
      const ids = select(trx('request_logs').select('id')).toSQL();
      // RETURNING names exactly the rows this statement removed, also when another instance deletes the same ones.
      const deleted = await trx.raw(`delete from request_logs where id in (${ids.sql}) returning ${[...FACT_COLUMNS, 'rolled_up'].join(', ')}`, ids.bindings);
      const removed = (Array.isArray(deleted) ? deleted : deleted.rows) as Array<Record<string, unknown>>;
      const metadataKeys = await readMetadataRollupKeys(trx);
      const deltas = rowDeltas(removed.filter((row) => Boolean(row.rolled_up)), -1, metadataKeys);
      await applyRollupDeltas(trx, deltas);
      await pruneEmptyRollups(trx, deltas);
      return removed.length;
    };
    return (this.db as Knex.Transaction).isTransaction ? remove(this.db as Knex.Transaction) : (this.db as Knex).transaction(remove);
  }
}
