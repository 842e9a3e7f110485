import type { Context } from 'openapi-backend';
import { toLogFilter, type LogFilterInput } from '../../gateway/logs/log-filter-input.js';
import { principalOf, type Call } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';
import { LogAnalytics, type AnalyticsTotals, type FeedbackTotals, type GroupDimension } from '../../store/log-analytics.js';
import type { LogFilter } from '../../store/log-filter.js';
import { isTimeZone } from '../../store/rollups/time-buckets.js';
import { query, type Handler } from '../types.js';
import { listWorkspaceFilter } from '../workspace-target.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const BUCKETS = { minute: MINUTE, hour: HOUR, day: DAY } as const;
const DEFAULT_RANGE = 7 * DAY;
const MAX_POINTS = 2000;

type Bucket = keyof typeof BUCKETS;

/** The filter with a bounded time range: the last 7 days unless start_time/end_time say otherwise. */
async function analyticsFilter(c: Context, call: Call): Promise<LogFilter & { start: number; end: number }> {
  const principal = principalOf(call);
  const q = query<'getAnalyticsSummary'>(c) as LogFilterInput & { workspace_id?: string };
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const filter = toLogFilter(principal.organisationId, workspaceId, q);
  const end = filter.end ?? call.services.now();
  const start = filter.start ?? end - DEFAULT_RANGE;
  if (start >= end) throw new ValidationError('start_time must be before end_time', 'start_time');
  return { ...filter, start, end };
}

function range(filter: { start: number; end: number }) {
  return { start_time: new Date(filter.start).toISOString(), end_time: new Date(filter.end).toISOString() };
}

const noFeedback: FeedbackTotals = { feedback_count: 0, feedback_avg: null };

export const getAnalyticsSummary: Handler = async (c, call) => {
  const filter = await analyticsFilter(c, call);
  const analytics = new LogAnalytics(call.services.db);
  const [totals, feedback] = await Promise.all([analytics.summary(filter), analytics.feedback(filter)]);
  return { body: { object: 'analytics_summary', ...range(filter), ...totals, ...(feedback.get(0) ?? noFeedback) } };
};

export const getAnalyticsGroups: Handler = async (c, call) => {
  const groupBy = String(c.request.params.group_by) as GroupDimension;
  const metadataKey = (query<'getAnalyticsGroups'>(c) as { metadata_key?: string }).metadata_key;
  if (groupBy === 'metadata' && !metadataKey) throw new ValidationError('metadata_key is required to group by metadata', 'metadata_key');
  const filter = await analyticsFilter(c, call);
  const data = await new LogAnalytics(call.services.db).groups(filter, groupBy, metadataKey);
  return { body: { object: 'analytics_groups', group_by: groupBy === 'metadata' ? `metadata.${metadataKey}` : groupBy, ...range(filter), data } };
};

/** Minute buckets up to 6 hours, hours up to 7 days, days beyond. */
function bucketFor(spanMs: number): Bucket {
  if (spanMs <= 6 * HOUR) return 'minute';
  if (spanMs <= 7 * DAY) return 'hour';
  return 'day';
}

export const getAnalyticsTimeSeries: Handler = async (c, call) => {
  const filter = await analyticsFilter(c, call);
  const q = query<'getAnalyticsTimeSeries'>(c) as { bucket?: Bucket; time_zone?: string };
  const bucket = q.bucket ?? bucketFor(filter.end - filter.start);
  const timeZone = q.time_zone ?? 'UTC';
  if (!isTimeZone(timeZone)) throw new ValidationError(`Unknown time zone "${timeZone}"; use an IANA name such as Europe/Paris`, 'time_zone');
  if ((filter.end - filter.start) / BUCKETS[bucket] > MAX_POINTS) {
    throw new ValidationError(`A ${bucket} series over this range would exceed ${MAX_POINTS} points; narrow the range or use a larger bucket`, 'bucket');
  }
  const analytics = new LogAnalytics(call.services.db);
  const [points, feedback] = await Promise.all([analytics.timeSeries(filter, bucket, timeZone), analytics.feedback(filter, { grain: bucket, timeZone })]);
  const byTime = new Map<number, { timestamp: number } & AnalyticsTotals>(points.map((point) => [point.timestamp, point]));
  for (const timestamp of feedback.keys()) if (!byTime.has(timestamp)) byTime.set(timestamp, { timestamp, ...EMPTY });
  const data = [...byTime.values()]
    .sort((a, b) => a.timestamp - b.timestamp)
    .map((point) => ({ ...point, ...(feedback.get(point.timestamp) ?? noFeedback), timestamp: new Date(point.timestamp).toISOString() }));
  return { body: { object: 'analytics_time_series', bucket, time_zone: timeZone, ...range(filter), data } };
};

const EMPTY: AnalyticsTotals = {
  requests: 0,
  errors: 0,
  error_rate: 0,
  cost: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  latency_avg_ms: null,
  latency_p50_ms: null,
  latency_p90_ms: null,
  latency_p99_ms: null,
  cache_hits: 0,
  cache_hit_rate: 0,
  cache_savings: 0,
  rescued_requests: 0,
  unpriced_requests: 0,
};
