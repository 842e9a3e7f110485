import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { applyLogFilter, isMetadataKey, type LogFilter } from './log-filter.js';

export interface AnalyticsTotals {
  requests: number;
  errors: number;
  error_rate: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_avg_ms: number | null;
  latency_p50_ms: number | null;
  latency_p90_ms: number | null;
  latency_p99_ms: number | null;
  cache_hits: number;
  cache_hit_rate: number;
  cache_savings: number;
  rescued_requests: number;
  feedback_count?: number;
  feedback_avg?: number | null;
}

export interface FeedbackTotals {
  feedback_count: number;
  feedback_avg: number | null;
}

export type GroupDimension = 'model' | 'provider' | 'user' | 'metadata' | 'api_key' | 'workspace' | 'status';

const GROUP_COLUMNS: Record<Exclude<GroupDimension, 'metadata'>, string> = {
  model: 'model',
  provider: 'provider',
  user: 'user_id',
  api_key: 'api_key_id',
  workspace: 'workspace_id',
  status: 'status',
};

const PERCENTILES = [0.5, 0.9, 0.99] as const;

// Plain columns derived at write time (is_error, cache_hit, rescued) keep these cheap on both engines.
const AGGREGATES = `count(*) as requests,
  sum(case when is_error then 1 else 0 end) as errors,
  sum(case when cache_hit then 0 else cost end) as cost,
  sum(prompt_tokens) as prompt_tokens,
  sum(completion_tokens) as completion_tokens,
  sum(total_tokens) as total_tokens,
  avg(latency_ms) as latency_avg_ms,
  sum(case when cache_hit then 1 else 0 end) as cache_hits,
  sum(case when cache_hit then cost else 0 end) as cache_savings,
  sum(case when rescued then 1 else 0 end) as rescued_requests`;

const PG_PERCENTILES = PERCENTILES.map(
  (p) => `percentile_cont(${p}) within group (order by latency_ms) as latency_p${Math.round(p * 100)}_ms`,
).join(',\n  ');

/** Linear interpolation between closest ranks: the same answer as Postgres percentile_cont. */
export function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const position = p * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

function totals(row: Record<string, unknown>): AnalyticsTotals {
  const n = (key: string) => Number(row[key] ?? 0);
  const maybe = (key: string) => (row[key] === null || row[key] === undefined ? null : Number(row[key]));
  const requests = n('requests');
  return {
    requests,
    errors: n('errors'),
    error_rate: requests ? n('errors') / requests : 0,
    cost: n('cost'),
    prompt_tokens: n('prompt_tokens'),
    completion_tokens: n('completion_tokens'),
    total_tokens: n('total_tokens'),
    latency_avg_ms: maybe('latency_avg_ms'),
    latency_p50_ms: maybe('latency_p50_ms'),
    latency_p90_ms: maybe('latency_p90_ms'),
    latency_p99_ms: maybe('latency_p99_ms'),
    cache_hits: n('cache_hits'),
    cache_hit_rate: requests ? n('cache_hits') / requests : 0,
    cache_savings: n('cache_savings'),
    rescued_requests: n('rescued_requests'),
  };
}

/**
 * Analytics over request_logs and log_feedback. Postgres computes latency percentiles in the
 * same statement (percentile_cont); SQLite has no ordered-set aggregates, so there a second
 * query reads the latencies of the range in index order and JS interpolates the same way
 * (exact; SQLite is the single-node default, not the million-row deployment).
 */
export class LogAnalytics {
  private readonly postgres: boolean;

  constructor(private readonly db: Knex) {
    this.postgres = dialectOf(db) === 'postgres';
  }

  async summary(filter: LogFilter): Promise<AnalyticsTotals> {
    return (await this.grouped(filter, null))[0]?.totals ?? totals({});
  }

  async groups(filter: LogFilter, dimension: GroupDimension, metadataKey?: string, limit = 100): Promise<Array<{ key: string | null } & AnalyticsTotals>> {
    const rows = await this.grouped(filter, this.groupExpression(dimension, metadataKey), limit);
    return rows.map((row) => ({ key: row.key === null ? null : String(row.key), ...row.totals }));
  }

  async timeSeries(filter: LogFilter, bucketMs: number): Promise<Array<{ timestamp: number } & AnalyticsTotals>> {
    if (!Number.isSafeInteger(bucketMs) || bucketMs <= 0) throw new Error('bucketMs must be a positive integer');
    const rows = await this.grouped(filter, `(created_at / ${bucketMs}) * ${bucketMs}`, undefined, true);
    return rows.map((row) => ({ timestamp: Number(row.key), ...row.totals })).sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Feedback count and weighted mean over time and workspace (feedback has no model or status). */
  async feedback(filter: LogFilter, bucketMs?: number): Promise<Map<number, FeedbackTotals>> {
    const bucket = bucketMs ? `(created_at / ${bucketMs}) * ${bucketMs}` : '0';
    const query = this.db('log_feedback')
      .select(this.db.raw(`${bucket} as bucket, count(*) as n, sum(value * weight) as weighted, sum(weight) as weights`))
      .where('organisation_id', filter.organisation_id);
    if (bucketMs) query.groupByRaw(bucket);
    if (filter.workspace_id) query.where('workspace_id', filter.workspace_id);
    if (filter.start !== undefined) query.where('created_at', '>=', filter.start);
    if (filter.end !== undefined) query.where('created_at', '<', filter.end);
    const out = new Map<number, FeedbackTotals>();
    for (const row of (await query) as Array<Record<string, unknown>>) {
      const weights = Number(row.weights ?? 0);
      out.set(Number(row.bucket), { feedback_count: Number(row.n), feedback_avg: weights ? Number(row.weighted) / weights : null });
    }
    return out;
  }

  private groupExpression(dimension: GroupDimension, metadataKey?: string): string {
    if (dimension !== 'metadata') return GROUP_COLUMNS[dimension];
    if (!metadataKey || !isMetadataKey(metadataKey)) throw new Error('a valid metadata key is required');
    // The key is restricted to [A-Za-z0-9_.-], so it can sit in the SQL text.
    return this.postgres ? `metadata->>'${metadataKey}'` : `json_extract(metadata, '$."${metadataKey}"')`;
  }

  private async grouped(
    filter: LogFilter,
    groupExpression: string | null,
    limit?: number,
    allGroups = false,
  ): Promise<Array<{ key: unknown; totals: AnalyticsTotals }>> {
    const select = `${groupExpression ? `${groupExpression} as group_key, ` : ''}${AGGREGATES}${this.postgres ? `,\n  ${PG_PERCENTILES}` : ''}`;
    const query = applyLogFilter(this.db, this.db('request_logs').select(this.db.raw(select)), filter);
    if (groupExpression) {
      query.groupByRaw(groupExpression);
      if (!allGroups) query.orderBy('requests', 'desc').limit(limit ?? 100);
    }
    const rows = this.postgres ? await this.withSortMemory(query) : ((await query) as Array<Record<string, unknown>>);
    if (!this.postgres) await this.addPercentilesInJs(filter, groupExpression, rows);
    return rows.filter((row) => groupExpression || Number(row.requests) > 0).map((row) => ({ key: row.group_key ?? null, totals: totals(row) }));
  }

  /** percentile_cont sorts every latency of a group: give that sort memory so it does not spill to disk. */
  private withSortMemory(query: Knex.QueryBuilder): Promise<Array<Record<string, unknown>>> {
    return this.db.transaction(async (trx) => {
      await trx.raw(`set local work_mem = '64MB'`);
      return (await query.transacting(trx)) as Array<Record<string, unknown>>;
    });
  }

  private async addPercentilesInJs(filter: LogFilter, groupExpression: string | null, rows: Array<Record<string, unknown>>): Promise<void> {
    const select = `${groupExpression ? `${groupExpression}` : 'null'} as group_key, latency_ms`;
    const latencies = (await applyLogFilter(this.db, this.db('request_logs').select(this.db.raw(select)), filter).orderBy('latency_ms')) as Array<{
      group_key: unknown;
      latency_ms: number;
    }>;
    const byGroup = new Map<string, number[]>();
    for (const { group_key, latency_ms } of latencies) {
      const key = String(group_key);
      let list = byGroup.get(key);
      if (!list) byGroup.set(key, (list = []));
      list.push(Number(latency_ms));
    }
    for (const row of rows) {
      const sorted = byGroup.get(String(groupExpression ? row.group_key : null)) ?? [];
      for (const p of PERCENTILES) row[`latency_p${Math.round(p * 100)}_ms`] = percentile(sorted, p);
    }
  }
}
