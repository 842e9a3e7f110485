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

export function alignSeries(groups: Array<{ label: string; series: AnalyticsTimeSeries }>, metric: Metric, emptyValue: 0 | null): Aligned {
  const times = [...new Set(groups.flatMap((g) => g.series.data.map((point) => Date.parse(point.timestamp) / 1000)))].sort((a, b) => a - b);
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
