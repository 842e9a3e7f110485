import { useMemo, useState } from 'react';
import { alignSeries, bucketFor, type Metric } from '../api/analytics-series';
import { TIME_RANGES, type LogFilters } from '../api/log-filters';
import type { AnalyticsGroupBy, AnalyticsGroups, AnalyticsQuery, AnalyticsSummary, AnalyticsTimeSeries } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote, Loading } from '../components/status';
import { TimeChart } from '../components/time-chart';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useAsync } from '../use-async';
import { logsLink, TopSection } from './analytics-top';
import { useNames } from '../use-names';

type Range = keyof typeof TIME_RANGES;
type Grouping = '' | Extract<AnalyticsGroupBy, 'provider' | 'model' | 'api_key' | 'workspace' | 'user'>;

const GROUPINGS: Array<[Grouping, string]> = [
  ['', 'Nothing (all traffic)'],
  ['provider', 'Provider'],
  ['model', 'Model'],
  ['api_key', 'API key'],
  ['workspace', 'Workspace'],
  ['user', 'User (_user)'],
];
/** The filter that narrows a time series to one group. */
const FILTER_OF: Record<Exclude<Grouping, ''>, (value: string) => AnalyticsQuery> = {
  provider: (v) => ({ provider: v }),
  model: (v) => ({ model: v }),
  api_key: (v) => ({ api_key_id: v }),
  workspace: (v) => ({ workspace_id: v }),
  user: (v) => ({ metadata: `_user=${v}` }),
};
const TOP_GROUPS = 5;

export function AnalyticsPage() {
  const { api } = useIdentity();
  const [range, setRange] = useState<Range>('24h');
  const [grouping, setGrouping] = useState<Grouping>('');
  const [now] = useState(() => Date.now());

  const base = useMemo<AnalyticsQuery>(() => ({ start_time: new Date(now - TIME_RANGES[range]).toISOString(), end_time: new Date(now + 60_000).toISOString() }), [now, range]);
  const bucket = bucketFor(TIME_RANGES[range]);
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const names = useNames();
  const summary = useAsync(() => api.get<AnalyticsSummary>('/v1/analytics/summary', base), [api, base]);
  const series = useAsync(async () => {
    if (!grouping) return [{ label: 'All', series: await api.get<AnalyticsTimeSeries>('/v1/analytics/time-series', { ...base, bucket, time_zone: timeZone }) }];
    const groups = await api.get<AnalyticsGroups>(`/v1/analytics/groups/${grouping}`, base);
    const top = groups.data.filter((g) => g.key !== null).sort((a, b) => b.requests - a.requests).slice(0, TOP_GROUPS);
    return Promise.all(
      top.map(async (g) => ({ label: g.key!, series: await api.get<AnalyticsTimeSeries>('/v1/analytics/time-series', { ...base, ...FILTER_OF[grouping](g.key!), bucket, time_zone: timeZone }) })),
    );
  }, [api, base, grouping, bucket, timeZone]);

  const charts = useMemo(() => {
    const byName = grouping ? names.data?.[grouping] : undefined;
    const data = (series.data ?? []).map((s) => ({ ...s, label: byName?.get(s.label) ?? s.label }));
    const chart = (id: string, title: string, metric: Metric, format: (n: number) => string, empty: 0 | null = 0, logs: Partial<LogFilters> = {}) => ({ id, title, format, logs, integer: format === fmt.count, ...alignSeries(data, metric, empty) });
    const latency = grouping
      ? chart('latency', 'Latency p90 by group', (t) => t.latency_p90_ms, fmt.ms, null)
      : (() => {
          const p50 = alignSeries(data, (t) => t.latency_p50_ms, null);
          const p90 = alignSeries(data, (t) => t.latency_p90_ms, null);
          const p99 = alignSeries(data, (t) => t.latency_p99_ms, null);
          return { id: 'latency', title: 'Latency percentiles', format: fmt.ms, integer: false, logs: {}, times: p50.times, series: [{ label: 'p50', values: p50.series[0]?.values ?? [] }, { label: 'p90', values: p90.series[0]?.values ?? [] }, { label: 'p99', values: p99.series[0]?.values ?? [] }] };
        })();
    return [
      chart('requests', 'Requests', (t) => t.requests, fmt.count),
      chart('errors', 'Errors (status 400 and above)', (t) => t.errors, fmt.count, 0, { status: '4xx,5xx' }),
      chart('tokens', 'Tokens', (t) => t.total_tokens, fmt.count),
      chart('cost', 'Cost (USD)', (t) => t.cost, fmt.usd),
      latency,
      chart('cache', 'Cache hit rate', (t) => t.cache_hit_rate, fmt.percent, null, { cacheStatus: 'HIT' }),
      chart('savings', 'Cache savings (USD)', (t) => t.cache_savings, fmt.usd, 0, { cacheStatus: 'HIT' }),
    ];
  }, [series.data, grouping, names.data]);

  const s = summary.data;
  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title" tabIndex={-1}>
        Analytics
      </h1>
      <form className="filters" aria-label="Analytics settings" onSubmit={(e) => e.preventDefault()}>
        <Field label="Time range">
          <select value={range} onChange={(e) => setRange(e.target.value as Range)}>
            {Object.keys(TIME_RANGES).map((r) => (
              <option key={r} value={r}>
                Last {r}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Group by">
          <select value={grouping} onChange={(e) => setGrouping(e.target.value as Grouping)}>
            {GROUPINGS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <ErrorNote error={summary.error} title="Could not load the summary" />
      {s && (
        <dl className="tiles" aria-label="Totals for the range">
          <Tile name="Requests" value={fmt.count(s.requests)} />
          <Tile name="Errors" value={`${fmt.count(s.errors)} (${fmt.percent(s.error_rate)})`} />
          <Tile name="Tokens" value={fmt.count(s.total_tokens)} />
          <Tile name="Cost" value={fmt.usd(s.cost)} />
          <Tile name="Latency p50 / p99" value={s.latency_p50_ms === null ? '—' : `${fmt.ms(s.latency_p50_ms)} / ${fmt.ms(s.latency_p99_ms ?? 0)}`} />
          <Tile name="Cache hit rate" value={fmt.percent(s.cache_hit_rate)} />
          <Tile name="Cache savings" value={fmt.usd(s.cache_savings)} />
        </dl>
      )}
      <ErrorNote error={series.error} title="Could not load the time series" />
      {series.loading && !series.data ? (
        <Loading what="Loading charts" />
      ) : (
        <div className="charts">
          {charts.map((c) => (
            <div key={c.id} className="chart-box">
              <TimeChart id={c.id} title={c.title} times={c.times} series={c.series} format={c.format} integer={c.integer} />
              <Link to={logsLink(range, c.logs)} className="drill">
                Open these logs<span className="sr-only"> ({c.title})</span>
              </Link>
            </div>
          ))}
        </div>
      )}
      <TopSection base={base} range={range} names={names.data} />
    </section>
  );
}

function Tile({ name, value }: { name: string; value: string }) {
  return (
    <div className="tile">
      <dt>{name}</dt>
      <dd>{value}</dd>
    </div>
  );
}
