/**
 * Analytics' top-N tables: spend and requests per key, user, workspace, model, provider or
 * metadata value, and errors per status, each row a link to Logs with the same range and filter.
 */
import { useState } from 'react';
import { searchOf, type LogFilters, type TimeRange } from '../api/log-filters';
import type { AnalyticsGroupBy, AnalyticsGroups, AnalyticsQuery } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote, Loading } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useAsync } from '../use-async';

type Group = AnalyticsGroups['data'][number];
export type Rank = 'cost' | 'requests';
const TOP_N = 10;

interface Dimension {
  groupBy: Extract<AnalyticsGroupBy, 'api_key' | 'user' | 'workspace' | 'model' | 'provider' | 'metadata'>;
  title: string;
  /** The Logs filter that narrows to one group value. */
  filter: (value: string) => Partial<LogFilters>;
}

export const DIMENSIONS: Dimension[] = [
  { groupBy: 'api_key', title: 'API keys', filter: (v) => ({ apiKeyId: v }) },
  { groupBy: 'user', title: 'Users', filter: (v) => ({ metadata: `_user=${v}` }) },
  { groupBy: 'workspace', title: 'Workspaces', filter: (v) => ({ workspaceId: v }) },
  { groupBy: 'model', title: 'Models', filter: (v) => ({ model: v }) },
  { groupBy: 'provider', title: 'Providers', filter: (v) => ({ provider: v }) },
];

/** The Logs page's address for this range and filter. */
export const logsLink = (range: TimeRange, filter: Partial<LogFilters> = {}) => `/logs${searchOf({ range, ...filter })}`;

interface TopProps {
  title: string;
  groups: Group[] | undefined;
  rank: Rank;
  range: TimeRange;
  names?: Map<string, string>;
  filter: (value: string) => Partial<LogFilters>;
}

/** The N largest groups by spend or requests, each with a bar scaled to the largest. */
export function TopTable({ title, groups, rank, range, names, filter }: TopProps) {
  const top = [...(groups ?? [])].sort((a, b) => b[rank] - a[rank] || b.requests - a.requests).slice(0, TOP_N);
  const max = Math.max(...top.map((g) => g[rank]), 0);
  const bar = (value: number) => (
    <span className="bar" aria-hidden="true">
      <span style={{ width: `${max > 0 ? (value / max) * 100 : 0}%` }} />
    </span>
  );
  return (
    <div className="top-table table-scroll">
      <table aria-label={`Top ${title.toLowerCase()}`}>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">{rank === 'cost' ? 'Spend' : 'Requests'}</th>
            <th scope="col">{rank === 'cost' ? 'Requests' : 'Spend'}</th>
            <th scope="col">Errors</th>
          </tr>
        </thead>
        <tbody>
          {top.length === 0 && (
            <tr>
              <td colSpan={4}>No requests in this range.</td>
            </tr>
          )}
          {top.map((g) => {
            const name = g.key === null ? '(none)' : (names?.get(g.key) ?? g.key);
            const [first, second] = rank === 'cost' ? [fmt.usd(g.cost), fmt.count(g.requests)] : [fmt.count(g.requests), fmt.usd(g.cost)];
            return (
              <tr key={g.key ?? ''}>
                <th scope="row">{g.key === null ? name : <Link to={logsLink(range, filter(g.key))}>{name}</Link>}</th>
                <td className="with-bar">
                  {bar(g[rank])}
                  {first}
                </td>
                <td>{second}</td>
                <td>{fmt.count(g.errors)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface SectionProps {
  base: AnalyticsQuery;
  range: TimeRange;
  /** useNames() of the page, so it is asked once. */
  names: Record<string, Map<string, string>> | undefined;
}

/** Every dimension's top table, a metadata key's, and the errors by status. */
export function TopSection({ base, range, names }: SectionProps) {
  const { api } = useIdentity();
  const [rank, setRank] = useState<Rank>('cost');
  const [metadataKey, setMetadataKey] = useState('');
  const [appliedKey, setAppliedKey] = useState('');
  const tables = useAsync(() => Promise.all(DIMENSIONS.map((d) => api.get<AnalyticsGroups>(`/v1/analytics/groups/${d.groupBy}`, base))), [api, base]);
  const metadata = useAsync(
    () => (appliedKey ? api.get<AnalyticsGroups>('/v1/analytics/groups/metadata', { ...base, metadata_key: appliedKey }) : Promise.resolve(undefined)),
    [api, base, appliedKey],
  );
  const errors = useAsync(() => api.get<AnalyticsGroups>('/v1/analytics/groups/status', { ...base, status: '4xx,5xx' }), [api, base]);
  const errorTotal = (errors.data?.data ?? []).reduce((sum, g) => sum + g.requests, 0);

  return (
    <section aria-labelledby="top-title">
      <h2 id="top-title">Spend and requests</h2>
      <form
        className="filters"
        aria-label="Top tables settings"
        onSubmit={(e) => {
          e.preventDefault();
          setAppliedKey(metadataKey.trim());
        }}
      >
        <Field label="Rank by">
          <select value={rank} onChange={(e) => setRank(e.target.value as Rank)}>
            <option value="cost">Spend</option>
            <option value="requests">Requests</option>
          </select>
        </Field>
        <Field label="Metadata key">
          <input value={metadataKey} onChange={(e) => setMetadataKey(e.target.value)} placeholder="env" pattern="[A-Za-z0-9_.\-]{1,128}" />
        </Field>
        <div className="actions">
          <button type="submit" className="secondary">
            Show metadata key
          </button>
        </div>
      </form>
      <ErrorNote error={tables.error ?? metadata.error} title="Could not load the top tables" />
      {!tables.data && !tables.error ? (
        <Loading what="Loading top tables" />
      ) : (
        <div className="top-tables">
          {appliedKey && metadata.data && <TopTable title={`Metadata ${appliedKey}`} groups={metadata.data.data} rank={rank} range={range} filter={(v) => ({ metadata: `${appliedKey}=${v}` })} />}
          {DIMENSIONS.map((d, i) => (
            <TopTable key={d.groupBy} title={d.title} groups={tables.data?.[i]?.data} rank={rank} range={range} names={names?.[d.groupBy]} filter={d.filter} />
          ))}
        </div>
      )}
      <h2>Errors by status</h2>
      <ErrorNote error={errors.error} title="Could not load the errors" />
      {errors.data && (
        <div className="table-scroll">
          <table aria-label="Errors by status">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Class</th>
                <th scope="col">Requests</th>
                <th scope="col">Share of errors</th>
              </tr>
            </thead>
            <tbody>
              {errors.data.data.length === 0 && (
                <tr>
                  <td colSpan={4}>No errors in this range.</td>
                </tr>
              )}
              {[...errors.data.data]
                .sort((a, b) => b.requests - a.requests)
                .map((g) => (
                  <tr key={g.key ?? ''}>
                    <th scope="row">{g.key === null ? '—' : <Link to={logsLink(range, { status: g.key })}>{g.key}</Link>}</th>
                    <td>{g.key ? `${g.key[0]}xx` : '—'}</td>
                    <td className="with-bar">
                      <span className="bar" aria-hidden="true">
                        <span style={{ width: `${errorTotal ? (g.requests / errorTotal) * 100 : 0}%` }} />
                      </span>
                      {fmt.count(g.requests)}
                    </td>
                    <td>{fmt.percent(errorTotal ? g.requests / errorTotal : 0)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
