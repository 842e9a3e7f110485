/**
 * Turns analytics time series (one per group) into the aligned columns a chart draws: one shared
 * time axis, and per group the metric at each time (0 for counts where a bucket had no requests,
 * null for latency, which has no value then).
 */
import type { AnalyticsTimeSeries, AnalyticsTotals } from './types';

export type Metric = (totals: AnalyticsTotals) => number | null;

export interface Aligned {
  times: number[];
  series: Array<{ label: string; values: Array<number | null> }>;
}

const STEP_SECONDS = { minute: 60, hour: 3600 } as const;

/**
 * Every bucket start from the range's start to its end, one step apart, aligned to the buckets gw
 * answered with (so quiet buckets show as 0, not as a line drawn across the gap). Day buckets follow
 * the time zone's midnights, which are not a fixed step apart: for them only the answered buckets.
 */
export function bucketTimes(answered: number[], bucket: 'minute' | 'hour' | 'day', startSec: number, endSec: number): number[] {
  const known = [...new Set(answered)].sort((a, b) => a - b);
  if (bucket === 'day' || known.length === 0) return known;
  const step = STEP_SECONDS[bucket];
  const anchor = known[0]!;
  const first = anchor - Math.floor((anchor - startSec) / step) * step;
  const times: number[] = [];
  for (let t = first; t < endSec; t += step) times.push(t);
  return times;
}

export function alignSeries(groups: Array<{ label: string; series: AnalyticsTimeSeries }>, metric: Metric, emptyValue: 0 | null): Aligned {
  const answered = groups.flatMap((g) => g.series.data.map((point) => Date.parse(point.timestamp) / 1000));
  const first = groups[0]?.series;
  const times = first ? bucketTimes(answered, first.bucket, Date.parse(first.start_time) / 1000, Date.parse(first.end_time) / 1000) : [];
  return {
    times,
    series: groups.map((g) => {
      const at = new Map(g.series.data.map((point) => [Date.parse(point.timestamp) / 1000, metric(point)]));
      return { label: g.label, values: times.map((t) => (at.has(t) ? at.get(t)! : emptyValue)) };
    }),
  };
}

/** minute buckets for an hour or less, hours up to a week, days beyond. */
export function bucketFor(rangeMs: number): 'minute' | 'hour' | 'day' {
  if (rangeMs <= 3_600_000) return 'minute';
  if (rangeMs <= 7 * 86_400_000) return 'hour';
  return 'day';
}
