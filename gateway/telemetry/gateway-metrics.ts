/**
 * Prometheus metrics (prom-client, one registry per gw instance). Gateway requests are counted
 * from their log entries, so every endpoint that logs (chat today, embeddings, responses, MCP ...
 * as they come) is covered without calls of its own; every HTTP request, control plane included,
 * is counted by route template and status at the dispatcher. Labels are bounded: routes are spec
 * templates, providers are adapter names, models past a cap become "other", statuses are codes;
 * never a user, key or trace id.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestLogEntry } from '../../core/request-log.js';
import { BoundedLabel } from './bounded-label.js';

/** Seconds: from a cache hit (a few ms) to a long completion (minutes). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: gw's own time per request, from tens of microseconds up. */
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Distinct model names that get their own label; later ones are counted as "other". */
const MODEL_LABEL_CAP = 200;

/** What the metrics read from the request log writer. */
export interface LogQueueStats {
  readonly pending: number;
  readonly dropped: number;
  readonly backlogAgeMs: number;
  readonly spoolBytes: number;
}

type GatewayLabels = 'route' | 'provider' | 'model' | 'status';

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly models = new BoundedLabel(MODEL_LABEL_CAP);
  private readonly requests: Counter<GatewayLabels>;
  private readonly errors: Counter<GatewayLabels | 'type'>;
  private readonly duration: Histogram<GatewayLabels>;
  private readonly overhead: Histogram<'route'>;
  private readonly upstream: Histogram<'provider' | 'model'>;
  private readonly firstToken: Histogram<'provider' | 'model'>;
  private readonly tokens: Counter<'route' | 'provider' | 'model' | 'kind'>;
  private readonly cost: Counter<'route' | 'provider' | 'model'>;
  private readonly unpriced: Counter<'route' | 'provider' | 'model'>;
  private readonly cache: Counter<'route' | 'status'>;
  private readonly guardrails: Counter<'phase' | 'verdict'>;
  private readonly limitRefusals: Counter<'route' | 'code'>;
  private readonly retries: Counter<'route' | 'provider'>;
  private readonly fallbacks: Counter<'route'>;
  private readonly http: Histogram<'route' | 'status'>;

  /** `clusterMetrics`: with several workers, /metrics answers every worker's registry merged, whichever worker serves it. */
  constructor(
    logQueue: LogQueueStats,
    private readonly clusterMetrics?: () => Promise<string>,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'gw_requests_total', help: 'Gateway requests by route, provider, model and status', labelNames: ['route', 'provider', 'model', 'status'], registers });
    this.errors = new Counter({ name: 'gw_request_errors_total', help: 'Gateway requests answered with status >= 400, by error type', labelNames: ['route', 'provider', 'model', 'status', 'type'], registers });
    this.duration = new Histogram({ name: 'gw_request_duration_seconds', help: 'Gateway request latency, arrival to last byte', labelNames: ['route', 'provider', 'model', 'status'], buckets: LATENCY_BUCKETS, registers });
    this.overhead = new Histogram({ name: 'gw_overhead_seconds', help: "gw's own time per gateway request: latency minus the time spent in upstream calls", labelNames: ['route'], buckets: OVERHEAD_BUCKETS, registers });
    this.upstream = new Histogram({ name: 'gw_upstream_duration_seconds', help: 'Time spent in upstream calls per request (all attempts)', labelNames: ['provider', 'model'], buckets: LATENCY_BUCKETS, registers });
    this.firstToken = new Histogram({ name: 'gw_time_to_first_token_seconds', help: 'Streams: arrival to the first chunk sent', labelNames: ['provider', 'model'], buckets: LATENCY_BUCKETS, registers });
    this.tokens = new Counter({ name: 'gw_tokens_total', help: 'Tokens by kind (prompt, completion)', labelNames: ['route', 'provider', 'model', 'kind'], registers });
    this.cost = new Counter({ name: 'gw_cost_usd_total', help: 'Cost in USD of priced requests (cache hits excluded)', labelNames: ['route', 'provider', 'model'], registers });
    this.unpriced = new Counter({ name: 'gw_unpriced_requests_total', help: 'Requests whose model the price catalog does not know: their cost is not counted', labelNames: ['route', 'provider', 'model'], registers });
    this.cache = new Counter({ name: 'gw_cache_lookups_total', help: 'Response cache lookups by result (HIT, SEMANTIC HIT, MISS, REFRESH)', labelNames: ['route', 'status'], registers });
    this.guardrails = new Counter({ name: 'gw_guardrail_verdicts_total', help: 'Guardrail verdicts by phase (input, output)', labelNames: ['phase', 'verdict'], registers });
    this.limitRefusals = new Counter({ name: 'gw_limit_refusals_total', help: 'Requests refused by a rate limit or budget', labelNames: ['route', 'code'], registers });
    this.retries = new Counter({ name: 'gw_retries_total', help: 'Retries of upstream calls', labelNames: ['route', 'provider'], registers });
    this.fallbacks = new Counter({ name: 'gw_fallbacks_total', help: 'Requests that moved on to a later config target', labelNames: ['route'], registers });
    this.http = new Histogram({ name: 'gw_http_request_duration_seconds', help: 'Every HTTP request (control plane included) by route template and status', labelNames: ['route', 'status'], buckets: LATENCY_BUCKETS, registers });
    new Gauge({ name: 'gw_log_queue_depth', help: 'Request log entries waiting to be written (in memory and spooled to disk)', registers, collect() { this.set(logQueue.pending); } });
    new Gauge({ name: 'gw_log_queue_oldest_seconds', help: 'Age of the oldest request log entry not yet written (0 when none waits)', registers, collect() { this.set(logQueue.backlogAgeMs / 1000); } });
    new Gauge({ name: 'gw_log_spool_bytes', help: 'Request log entries spooled to the data directory while the store is down or behind', registers, collect() { this.set(logQueue.spoolBytes); } });
    // A counter (rate() and increase() need one): each scrape adds the drops since the last.
    let droppedCounted = 0;
    new Counter({
      name: 'gw_log_rows_dropped_total',
      help: 'Request log entries dropped because the queue was full (should stay 0)',
      registers,
      collect() {
        this.inc(logQueue.dropped - droppedCounted);
        droppedCounted = logQueue.dropped;
      },
    });
  }

  /** One gateway request, from its log entry. */
  observe(entry: RequestLogEntry): void {
    const route = entry.endpoint;
    const provider = entry.provider ?? 'none';
    const model = this.models.of(entry.model);
    const status = String(entry.status);
    const labels = { route, provider, model, status };
    this.requests.inc(labels);
    this.duration.observe(labels, entry.latency_ms / 1000);
    if (entry.status >= 400) this.errors.inc({ ...labels, type: entry.error?.type ?? 'error' });
    if (entry.upstream_ms !== undefined) {
      this.overhead.observe({ route }, Math.max(0, entry.latency_ms - entry.upstream_ms) / 1000);
      if (entry.upstream_ms > 0) this.upstream.observe({ provider, model }, entry.upstream_ms / 1000);
    }
    if (entry.stream && entry.first_byte_ms !== null) this.firstToken.observe({ provider, model }, entry.first_byte_ms / 1000);
    if (entry.prompt_tokens) this.tokens.inc({ route, provider, model, kind: 'prompt' }, entry.prompt_tokens);
    if (entry.completion_tokens) this.tokens.inc({ route, provider, model, kind: 'completion' }, entry.completion_tokens);
    const hit = entry.cache_status === 'HIT' || entry.cache_status === 'SEMANTIC HIT';
    if (entry.cost && !hit) this.cost.inc({ route, provider, model }, entry.cost);
    if (entry.cost_unpriced) this.unpriced.inc({ route, provider, model });
    if (entry.cache_status !== 'DISABLED') this.cache.inc({ route, status: entry.cache_status });
    if (entry.error?.type === 'rate_limit_error') this.limitRefusals.inc({ route, code: entry.error.code });
    if (entry.retry_count) this.retries.inc({ route, provider }, entry.retry_count);
    if (entry.route.length > 1) this.fallbacks.inc({ route });
    if (entry.guardrail_results) {
      for (const result of entry.guardrail_results as Array<{ phase?: string; verdict?: boolean }>) {
        this.guardrails.inc({ phase: result.phase ?? 'unknown', verdict: result.verdict ? 'pass' : 'fail' });
      }
    }
  }

  /** One HTTP request of any kind, by the spec's route template (`GET /v1/configs/{id}`). */
  observeHttp(route: string, status: number, seconds: number): void {
    this.http.observe({ route, status: String(status) }, seconds);
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.clusterMetrics ? this.clusterMetrics() : this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
