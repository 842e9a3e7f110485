import type { Knex } from 'knex';
import { dialectOf } from './db.js';
import { applyLogFilter, isMetadataKey, type LogFilter } from './log-filter.js';
import { METADATA_SET, setFor, type Grain, type MetadataDimension, type RollupDimension, type RollupSet, type SeriesGrain } from './rollups/dimensions.js';
import { binSql, LatencySketch } from './rollups/latency-sketch.js';
import { isRolledUpValue, NO_METADATA_KEYS, OTHER_VALUE, readMetadataRollupKeys, type MetadataRollupKeys } from './rollups/metadata-keys.js';
import { ALL_WORKSPACES } from './rollups/rollup-deltas.js';
import { bucketBoundaries, bucketIndex, coverRange, rawTimeUnit, type Cover, type Sign } from './rollups/time-buckets.js';
import { isSpecialMetadataKey, SPECIAL_METADATA_COLUMNS } from './special-metadata.js';

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
  unpriced_requests: number;
  feedback_count?: number;
  feedback_avg?: number | null;
}

export interface FeedbackTotals {
  feedback_count: number;
  feedback_avg: number | null;
}

export type GroupDimension =
  | 'model' | 'provider' | 'user' | 'environment' | 'organisation' | 'prompt' | 'prompt_version' | 'prompt_label' | 'metadata' | 'api_key' | 'workspace' | 'status' | 'endpoint' | 'cache_status';

/** The column each group-by reads, the same in request_logs and analytics_rollups. */
const GROUP_COLUMNS: Record<Exclude<GroupDimension, 'metadata'>, string> = {
  model: 'model',
  provider: 'provider',
  // The special metadata keys (store/special-metadata.ts).
  user: SPECIAL_METADATA_COLUMNS._user,
  environment: SPECIAL_METADATA_COLUMNS._environment,
  organisation: SPECIAL_METADATA_COLUMNS._organisation,
  prompt: SPECIAL_METADATA_COLUMNS._prompt,
  prompt_version: 'prompt_version',
  prompt_label: 'prompt_label',
  api_key: 'api_key_id',
  workspace: 'workspace_id',
  status: 'status',
  endpoint: 'endpoint',
  cache_status: 'cache_status',
};

/** Sums kept per rollup row and computed the same way from raw rows. */
const SUMS = ['requests', 'errors', 'cost', 'cache_savings', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'latency_sum', 'cache_hits', 'rescued', 'unpriced'] as const;
type Sums = Record<(typeof SUMS)[number], number>;

// Plain columns derived at write time (is_error, cache_hit, rescued) keep these cheap on both engines.
// `sign` is -1 for rows a piece takes away (those outside the range in a whole rollup bucket).
const RAW_SUMS = `sum(sign) as requests,
  sum(case when is_error then sign else 0 end) as errors,
  sum(case when cache_hit then 0 else sign * cost end) as cost,
  sum(case when cache_hit then sign * cost else 0 end) as cache_savings,
  sum(sign * prompt_tokens) as prompt_tokens,
  sum(sign * completion_tokens) as completion_tokens,
  sum(sign * total_tokens) as total_tokens,
  sum(sign * latency_ms) as latency_sum,
  sum(case when cache_hit then sign else 0 end) as cache_hits,
  sum(case when rescued then sign else 0 end) as rescued,
  sum(case when cost_unpriced then sign else 0 end) as unpriced`;

/** Ranges are bounded for the planner: "no start" is the epoch, "no end" the last day a Date holds. */
const EARLIEST = 0;
const LATEST = 8_640_000_000_000_000;

/** One group (or one time bucket of one) being added up from rollup rows and raw rows. */
class Accumulator {
  readonly sums: Sums = Object.fromEntries(SUMS.map((name) => [name, 0])) as Sums;
  readonly latency = new LatencySketch();

  add(row: Record<string, unknown>): void {
    for (const name of SUMS) this.sums[name] += Number(row[name] ?? 0);
  }

  totals(): AnalyticsTotals {
    const { requests, errors, cache_hits: cacheHits } = this.sums;
    return {
      requests,
      errors,
      error_rate: requests ? errors / requests : 0,
      cost: this.sums.cost,
      prompt_tokens: this.sums.prompt_tokens,
      completion_tokens: this.sums.completion_tokens,
      total_tokens: this.sums.total_tokens,
      latency_avg_ms: requests ? this.sums.latency_sum / requests : null,
      latency_p50_ms: this.latency.percentile(0.5),
      latency_p90_ms: this.latency.percentile(0.9),
      latency_p99_ms: this.latency.percentile(0.99),
      cache_hits: cacheHits,
      cache_hit_rate: requests ? cacheHits / requests : 0,
      cache_savings: this.sums.cache_savings,
      rescued_requests: this.sums.rescued,
      unpriced_requests: this.sums.unpriced,
    };
  }
}

/** What one analytics call reads: the rollup buckets that fit, and the raw rows for the rest. */
interface Plan extends Cover {
  filter: LogFilter;
  start: number;
  end: number;
  /** Bucket starts then the end, for a time series. */
  boundaries: number[] | null;
  /** The group column or expression on request_logs; null for totals. */
  group: string | null;
  /** The same on analytics_rollups (metadata_value for a group by a rolled-up metadata key). */
  rollupGroup: string | null;
  set: RollupSet | undefined;
  /** With the `metadata` set: the listed key its rows are read for, and the value a filter asks for. */
  metadata?: { key: string; value?: string };
}

/** What a call filters and groups by, before the plan is made. */
interface Ask {
  filter: LogFilter;
  /** The group expression on request_logs. */
  group: string | null;
  /** A group by an arbitrary (not special) metadata key: that key. */
  groupKey?: string;
  series: { grain: SeriesGrain; timeZone: string } | null;
}

/**
 * Analytics over request_logs, read from the rollups (store/rollups/) whenever the filter and
 * grouping are dimensions of one rollup set, and from the raw rows for what no rollup holds:
 * the partial buckets at the edges of the range, rows not yet rolled up (before the backfill),
 * and filters or groups on arbitrary metadata keys or a trace id. Counts and sums are exact;
 * latency percentiles come from merged DDSketches, within 1% of the exact value.
 *
 * Each call's reads run in one snapshot (`snapshot`): a fold (store/rollups/backfill.ts) moves
 * rows from the raw side to the rollups in one commit, and reads on either side of that commit
 * would count its rows twice or not at all.
 */
export class LogAnalytics {
  private readonly postgres: boolean;

  constructor(private readonly db: Knex) {
    this.postgres = dialectOf(db) === 'postgres';
  }

  async summary(filter: LogFilter): Promise<AnalyticsTotals> {
    const groups = await this.snapshot(async (trx) => this.run(trx, await this.plan(trx, { filter, group: null, series: null })));
    return (groups.get(null)?.get(0) ?? new Accumulator()).totals();
  }

  count(filter: LogFilter): Promise<number> {
    return this.snapshot(async (trx) => {
      const plan = await this.plan(trx, { filter, group: null, series: null });
      await this.tune(trx, plan);
      const rows = [...(await this.rollupSums(trx, plan, ['requests'])), ...(await this.rawSums(trx, plan, 'sum(sign) as requests'))];
      return rows.reduce((n, row) => n + Number(row.requests ?? 0), 0);
    });
  }

  async groups(filter: LogFilter, dimension: GroupDimension, metadataKey?: string, limit = 100): Promise<Array<{ key: string | null } & AnalyticsTotals>> {
    const ask: Ask = { filter, group: this.groupColumn(dimension, metadataKey), series: null };
    if (dimension === 'metadata' && metadataKey && !isSpecialMetadataKey(metadataKey)) ask.groupKey = metadataKey;
    const groups = await this.snapshot(async (trx) => {
      const plan = await this.plan(trx, ask);
      const counted = await this.run(trx, plan, limit);
      // Values the metadata set does not keep one by one (long, not strings): the raw rows tell them apart.
      return plan.metadata && counted.has(OTHER_VALUE) ? this.run(trx, this.planWith(ask, undefined), limit) : counted;
    });
    return [...groups.entries()]
      .map(([key, buckets]) => ({ key: key === null ? null : String(key), ...buckets.get(0)!.totals() }))
      .filter((group) => group.requests > 0)
      .sort((a, b) => b.requests - a.requests || String(a.key).localeCompare(String(b.key)))
      .slice(0, limit);
  }

  /** Totals per bucket of `grain` in `timeZone` (an IANA name), buckets without requests left out. */
  async timeSeries(filter: LogFilter, grain: SeriesGrain, timeZone = 'UTC'): Promise<Array<{ timestamp: number } & AnalyticsTotals>> {
    const ask: Ask = { filter, group: null, series: { grain, timeZone } };
    const [plan, groups] = await this.snapshot(async (trx) => {
      const planned = await this.plan(trx, ask);
      return [planned, await this.run(trx, planned)] as const;
    });
    const buckets = groups.get(null) ?? new Map<number, Accumulator>();
    return [...buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, acc]) => ({ timestamp: plan.boundaries![index]!, ...acc.totals() }))
      .filter((point) => point.requests > 0);
  }

  /** Feedback count and weighted mean over time and workspace (feedback has no model or status), keyed by bucket start (0 without buckets). */
  async feedback(filter: LogFilter, buckets?: { grain: SeriesGrain; timeZone?: string }): Promise<Map<number, FeedbackTotals>> {
    const boundaries = buckets && filter.start !== undefined && filter.end !== undefined ? bucketBoundaries(filter.start, filter.end, buckets.grain, buckets.timeZone ?? 'UTC') : null;
    const unit = boundaries ? rawTimeUnit(boundaries) : 0;
    const bucket = unit ? `(created_at / ${unit}) * ${unit}` : '0';
    const query = this.db('log_feedback')
      .select(this.db.raw(`${bucket} as bucket, count(*) as n, sum(value * weight) as weighted, sum(weight) as weights`))
      .where('organisation_id', filter.organisation_id);
    if (unit) query.groupByRaw(bucket);
    if (filter.workspace_id) query.where('workspace_id', filter.workspace_id);
    if (filter.start !== undefined) query.where('created_at', '>=', filter.start);
    if (filter.end !== undefined) query.where('created_at', '<', filter.end);
    const sums = new Map<number, { n: number; weighted: number; weights: number }>();
    for (const row of (await query) as Array<Record<string, unknown>>) {
      const at = boundaries ? boundaries[bucketIndex(boundaries, Math.max(Number(row.bucket), filter.start!))]! : 0;
      const into = sums.get(at) ?? { n: 0, weighted: 0, weights: 0 };
      into.n += Number(row.n);
      into.weighted += Number(row.weighted ?? 0);
      into.weights += Number(row.weights ?? 0);
      sums.set(at, into);
    }
    return new Map([...sums].map(([at, s]) => [at, { feedback_count: s.n, feedback_avg: s.weights ? s.weighted / s.weights : null }]));
  }

  private groupColumn(dimension: GroupDimension, metadataKey?: string): string {
    if (dimension !== 'metadata') return GROUP_COLUMNS[dimension];
    if (!metadataKey || !isMetadataKey(metadataKey)) throw new Error('a valid metadata key is required');
    if (isSpecialMetadataKey(metadataKey)) return SPECIAL_METADATA_COLUMNS[metadataKey];
    // The key is restricted to [A-Za-z0-9_.-], so it can sit in the SQL text.
    return this.postgres ? `metadata->>'${metadataKey}'` : `json_extract(metadata, '$."${metadataKey}"')`;
  }

  /**
   * The rollup set that holds every dimension the filter and group name, or undefined when the raw
   * rows must answer; with the `metadata` set, the key (and value) it is read for.
   */
  private rollupSet(ask: Ask, listed: MetadataRollupKeys): { set: RollupSet; metadata?: Plan['metadata'] } | undefined {
    const { filter, group } = ask;
    // Rollups keep no trace id or cache outcome: such filters read the raw rows.
    if (filter.trace_id || filter.cache_status) return undefined;
    const needed = new Set<RollupDimension | MetadataDimension>();
    const columns: Array<[unknown, RollupDimension]> = [
      [filter.api_key_id, 'api_key_id'], [filter.model, 'model'], [filter.provider, 'provider'], [filter.endpoint, 'endpoint'], [filter.status?.length, 'status'],
      [filter.prompt_id, 'prompt_id'], [filter.prompt_version, 'prompt_version'], [filter.prompt_label, 'prompt_label'],
    ];
    for (const [value, dimension] of columns) if (value) needed.add(dimension);
    // One arbitrary key, listed, as a filter (a short value) or a group, or both on the same key: the metadata set.
    let metadata: Plan['metadata'];
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (isSpecialMetadataKey(key)) needed.add(SPECIAL_METADATA_COLUMNS[key]);
      else if (metadata || !listed.has(key) || !isRolledUpValue(value)) return undefined;
      else metadata = { key, value };
    }
    if (ask.groupKey) {
      if (!listed.has(ask.groupKey) || (metadata && metadata.key !== ask.groupKey)) return undefined;
      metadata = { key: ask.groupKey, value: metadata?.value };
    } else if (group && group !== 'workspace_id') {
      if (!/^[a-z_]+$/.test(group)) return undefined;
      needed.add(group as RollupDimension);
    }
    if (metadata) for (const dimension of METADATA_SET.dimensions) needed.add(dimension);
    const set = setFor(needed);
    return set ? { set, metadata } : undefined;
  }

  private async plan(trx: Knex.Transaction, ask: Ask): Promise<Plan> {
    const names = [...Object.keys(ask.filter.metadata ?? {}), ask.groupKey ?? ''];
    // The listed keys are read only for calls naming an arbitrary key (a primary-key scan of a tiny table).
    const listed = names.some((key) => key && !isSpecialMetadataKey(key)) ? await readMetadataRollupKeys(trx) : NO_METADATA_KEYS;
    const chosen = this.rollupSet(ask, listed);
    const plan = this.planWith(ask, chosen);
    // A key's rollups count rows from its counted_from on: buckets starting earlier are not all there.
    if (plan.metadata && plan.rollup.some((piece) => piece.from < listed.get(plan.metadata!.key)!)) return this.planWith(ask, undefined);
    return plan;
  }

  /** The pieces of the call read from `chosen` (its rollups), the rest from raw rows; all raw rows without a set. */
  private planWith(ask: Ask, chosen: { set: RollupSet; metadata?: Plan['metadata'] } | undefined): Plan {
    const { filter, group, series } = ask;
    const start = filter.start ?? EARLIEST;
    const end = filter.end ?? LATEST;
    const boundaries = series ? bucketBoundaries(start, end, series.grain, series.timeZone) : null;
    const set = chosen?.set;
    const rollupGroup = chosen?.metadata && ask.groupKey ? 'metadata_value' : group;
    const plan: Plan = { filter, start, end, boundaries, group, rollupGroup, set, metadata: chosen?.metadata, rollup: [], raw: [] };
    const edges = boundaries ?? [start, end];
    for (let i = 0; i + 1 < edges.length; i++) coverRange(Math.max(edges[i]!, start), edges[i + 1]!, set?.grains ?? [], plan, 1, boundaries ? edges[i]! : 0);
    return plan;
  }

  /** Adds up rollup and raw rows per group and bucket index; for groups, percentiles only for the `limit` largest. */
  private async run(trx: Knex.Transaction, plan: Plan, limit?: number): Promise<Map<string | null, Map<number, Accumulator>>> {
    const out = new Map<string | null, Map<number, Accumulator>>();
    const at = (key: unknown, time: unknown) => {
      const group = key === null || key === undefined ? null : String(key);
      let buckets = out.get(group);
      if (!buckets) out.set(group, (buckets = new Map()));
      const index = plan.boundaries ? bucketIndex(plan.boundaries, Math.max(Number(time), plan.start)) : 0;
      let acc = buckets.get(index);
      if (!acc) buckets.set(index, (acc = new Accumulator()));
      return acc;
    };
    await this.tune(trx, plan);
    for (const row of await this.rollupSums(trx, plan)) at(row.group_key, row.time_key).add(row);
    for (const row of await this.rawRowsGrouped(trx, plan)) this.addRaw(at(row.group_key, row.time_key), row);
    // Groups need their sums first (percentiles for the `limit` largest only); totals and series read every bin.
    let sketches: Array<Record<string, unknown>>;
    if (!plan.group || limit === undefined) sketches = await this.rollupBins(trx, plan);
    else {
      const keys = [...out.entries()]
        .map(([key, buckets]) => ({ key, requests: buckets.get(0)?.sums.requests ?? 0 }))
        .sort((a, b) => b.requests - a.requests || String(a.key).localeCompare(String(b.key)))
        .slice(0, limit)
        .map(({ key }) => key);
      sketches = await this.rollupBins(trx, plan, keys);
    }
    for (const row of sketches) at(row.group_key, row.time_key).latency.addStoredBins(row.latency, Number(row.sign));
    return out;
  }

  /** A raw (group, time, latency bin) row: its sums, and its bin counted `requests` times. */
  private addRaw(acc: Accumulator, row: Record<string, unknown>): void {
    acc.add(row);
    acc.latency.addBin(row.bin === null || row.bin === undefined ? null : Number(row.bin), Number(row.requests));
  }

  /** Rollup rows of the plan's set and buckets matching the filter (a query over analytics_rollups). */
  private rollupRows(plan: Plan): Knex.QueryBuilder | undefined {
    if (!plan.set || !plan.rollup.length) return undefined;
    const { db } = this;
    // Arbitrary metadata keys are not columns here: the metadata set's rows say key and value.
    const special = Object.fromEntries(Object.entries(plan.filter.metadata ?? {}).filter(([key]) => isSpecialMetadataKey(key)));
    const from = fromPieces(db, plan.rollup, 'analytics_rollups').whereRaw('analytics_rollups.grain = p.grain and analytics_rollups.bucket_start >= p.lo and analytics_rollups.bucket_start < p.hi');
    const query = applyLogFilter(db, from, { ...plan.filter, metadata: special, start: undefined, end: undefined }, 'analytics_rollups').where('dimension_set', plan.set.name);
    if (plan.metadata) {
      query.where('analytics_rollups.metadata_key', plan.metadata.key);
      if (plan.metadata.value !== undefined) query.where('analytics_rollups.metadata_value', plan.metadata.value);
    }
    // Without a workspace filter the all-workspaces rows answer, except a group-by workspace, which reads the others.
    if (!plan.filter.workspace_id) query.where('analytics_rollups.workspace_id', plan.group === 'workspace_id' ? '<>' : '=', ALL_WORKSPACES);
    // The buckets by range (the primary key finds them), then each once per piece it falls in, with that piece's sign and series point.
    const byGrain = rangesByGrain(plan.rollup);
    query.where((q) => {
      for (const [grain, ranges] of byGrain) {
        q.orWhere((g) => g.where('analytics_rollups.grain', grain).andWhere((r) => {
          for (const { from, to } of ranges) r.orWhere((b) => b.where('analytics_rollups.bucket_start', '>=', from).andWhere('analytics_rollups.bucket_start', '<', to));
        }));
      }
    });
    return query;
  }

  private rollupSums(trx: Knex.Transaction, plan: Plan, sums: readonly string[] = SUMS): Promise<Array<Record<string, unknown>>> {
    const query = this.rollupRows(plan);
    if (!query) return Promise.resolve([]);
    query.select(this.db.raw(`${plan.rollupGroup ?? 'null'} as group_key, p.point as time_key, ${sums.map((name) => `sum(p.sign * ${name}) as ${name}`).join(', ')}`)).groupByRaw('1, 2');
    return read(trx, query);
  }

  /**
   * The stored latency bins of the matching rollup rows (of the given groups only, when named),
   * each with its piece's sign and series point, merged in JavaScript (LatencySketch adds a
   * row's bins into a dense array). Expanding them in the database, one row per bin, cost most of
   * every call: 250 ms of 277 for the groups by user at a million rows under load.
   */
  private rollupBins(trx: Knex.Transaction, plan: Plan, keys?: Array<string | null>): Promise<Array<Record<string, unknown>>> {
    const query = this.rollupRows(plan);
    if (!query || (keys && !keys.length)) return Promise.resolve([]);
    const group = plan.rollupGroup ? `analytics_rollups.${plan.rollupGroup}` : 'null';
    query.select(this.db.raw(`${group} as group_key, p.point as time_key, p.sign as sign, analytics_rollups.latency as latency`));
    if (keys && plan.rollupGroup) {
      const column = `analytics_rollups.${plan.rollupGroup}`;
      const values = keys.filter((key) => key !== null);
      query.where((q) => {
        if (values.length) q.whereIn(column, plan.rollupGroup === 'status' ? values.map(Number) : values);
        if (values.length < keys.length) q.orWhereNull(column);
      });
    }
    return read(trx, query);
  }

  /**
   * The raw rows the rollups do not hold, each with its sign: with rollups, the rolled-up rows of
   * the plan's raw pieces (added, or taken away from a whole bucket) and every row of the range
   * not yet rolled up (none once the backfill has run: a partial index finds that at once);
   * without, every row of the range.
   */
  private rawRows(plan: Plan, columns: string): Knex.QueryBuilder | undefined {
    const { db } = this;
    const filter = { ...plan.filter, start: undefined, end: undefined };
    const base = (select: string) => applyLogFilter(db, db('request_logs').select(db.raw(`${columns}, ${select}`)), filter);
    // The raw pieces, each row with its piece's sign and series point.
    const pieces = () =>
      applyLogFilter(db, fromPieces(db, plan.raw, 'request_logs').select(db.raw(`${columns}, p.sign as sign, p.point as time_key`)), filter).whereRaw(
        'request_logs.created_at >= p.lo and request_logs.created_at < p.hi',
      );
    if (!plan.rollup.length) return plan.raw.length ? pieces() : undefined;
    const parts: Knex.QueryBuilder[] = [];
    if (plan.raw.length) parts.push(pieces().whereRaw(this.postgres ? 'rolled_up' : 'rolled_up = 1'));
    const unit = plan.boundaries ? rawTimeUnit(plan.boundaries) : 0;
    parts.push(
      base(`1 as sign, ${unit ? `(created_at / ${unit}) * ${unit}` : '0'} as time_key`)
        .whereRaw(this.postgres ? 'not rolled_up' : 'rolled_up = 0')
        .where('created_at', '>=', plan.start)
        .where('created_at', '<', plan.end),
    );
    return parts.length === 1 ? parts[0] : parts[0]!.unionAll(parts.slice(1));
  }

  private rawColumns(plan: Plan): string {
    return `${plan.group ?? 'null'} as group_key`;
  }

  private rawSums(trx: Knex.Transaction, plan: Plan, sums: string): Promise<Array<Record<string, unknown>>> {
    const rows = this.rawRows(plan, `${this.rawColumns(plan)}, latency_ms, cost, cost_unpriced, is_error, cache_hit, rescued, prompt_tokens, completion_tokens, total_tokens`);
    if (!rows) return Promise.resolve([]);
    return read(trx, this.db.select(this.db.raw(`group_key, time_key, ${sums}`)).from(rows.as('r')).groupBy('group_key', 'time_key'));
  }

  /** Sums of the raw rows per group, time and latency bin: the bins feed the sketch, the sums add up. */
  private rawRowsGrouped(trx: Knex.Transaction, plan: Plan): Promise<Array<Record<string, unknown>>> {
    const rows = this.rawRows(plan, `${this.rawColumns(plan)}, latency_ms, cost, cost_unpriced, is_error, cache_hit, rescued, prompt_tokens, completion_tokens, total_tokens`);
    if (!rows) return Promise.resolve([]);
    // Grouped by latency bin, not by latency: at most a few hundred rows per group and point come back, whatever the traffic.
    const query = this.db.select(this.db.raw(`group_key, time_key, ${binSql('latency_ms')} as bin, ${RAW_SUMS}`)).from(rows.as('r')).groupByRaw('1, 2, 3');
    return read(trx, query);
  }

  /**
   * Runs one call's reads in one transaction, one after another on its connection, so they all see
   * one snapshot: on Postgres a read-only one at REPEATABLE READ (its snapshot taken at the first
   * read); SQLite's transactions are serializable, and in WAL mode a read transaction keeps the
   * snapshot of its first read while other connections (the log writer thread, another instance)
   * commit. Inside a caller's transaction the reads join it (a savepoint): its isolation is the caller's.
   */
  private snapshot<T>(reads: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.postgres ? this.db.transaction(reads, { isolationLevel: 'repeatable read', readOnly: true }) : this.db.transaction(reads);
  }

  /**
   * Postgres settings for a plan's reads, without JIT (compiling these scans cost more than it saved,
   * ~70 ms a query at a million rows): a scan of raw rows (no rollup set fits) with room to hash
   * groups in memory, rollup reads and raw edges without parallel workers.
   */
  private async tune(trx: Knex.Transaction, plan: Plan): Promise<void> {
    if (!this.postgres) return;
    // A rollup read touches a few hundred rows, but the planner guesses 100 bins per sketch and
    // would start a parallel worker (measured: 170 ms to launch one on a loaded machine, for a 3 ms query).
    const workers = plan.set ? '0' : 'default';
    await trx.raw(`set local jit = off; set local max_parallel_workers_per_gather = ${workers}; set local work_mem = '32MB'`);
  }
}

function read(trx: Knex.Transaction, query: Knex.QueryBuilder): Promise<Array<Record<string, unknown>>> {
  return query.transacting(trx) as unknown as Promise<Array<Record<string, unknown>>>;
}

/** The pieces' ranges per grain, overlapping and adjacent ones joined. */
function rangesByGrain(pieces: Plan['rollup']): Map<Grain, Array<{ from: number; to: number }>> {
  const byGrain = new Map<Grain, Array<{ from: number; to: number }>>();
  for (const piece of [...pieces].sort((a, b) => a.from - b.from)) {
    const ranges = byGrain.get(piece.grain) ?? [];
    const last = ranges[ranges.length - 1];
    if (last && last.to >= piece.from) last.to = Math.max(last.to, piece.to);
    else ranges.push({ from: piece.from, to: piece.to });
    byGrain.set(piece.grain, ranges);
  }
  return byGrain;
}

/**
 * The pieces, then `table` (a cross join: the caller's where joins them). SQLite keeps that order,
 * so each piece is one index range search; joined the other way it walked every row of the
 * organisation and tried each against the pieces (67 ms of a 24 h summary over 100,000 rows).
 * Postgres plans the join order itself.
 */
function fromPieces(db: Knex, pieces: Parameters<typeof piecesTable>[0], table: string): Knex.QueryBuilder {
  return db.from(db.raw(`${piecesTable(pieces)} as p`)).joinRaw(`cross join ${table}`);
}

/**
 * The pieces as a table (grain, lo, hi, sign, point) to join on. Their values are numbers and
 * grain names this module computed, so they are written into the SQL: a minute series has
 * hundreds of pieces, more than SQLite takes bound parameters for.
 */
function piecesTable(pieces: ReadonlyArray<{ grain?: Grain; from: number; to: number; sign: Sign; point: number }>): string {
  const rows = pieces.map((piece) => {
    for (const n of [piece.from, piece.to, piece.sign, piece.point]) if (!Number.isSafeInteger(n)) throw new Error(`not a whole number: ${n}`);
    return `('${piece.grain ?? ''}', ${piece.from}, ${piece.to}, ${piece.sign}, ${piece.point})`;
  });
  // One VALUES list (a single scan to plan, where a union of hundreds of selects took longer to plan than to run).
  return `(select column1 as grain, column2 as lo, column3 as hi, column4 as sign, column5 as point from (values ${rows.join(', ')}) as v)`;
}
