import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { can } from '../api/identity';
import { FilterError, filtersFromSearch, NO_FILTERS, searchOf, toLogQuery, type LogFilters, type TimeRange } from '../api/log-filters';
import type { CacheStatus, LogSummary, Page } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote, Loading, Empty } from '../components/status';
import { VirtualList } from '../components/virtual-list';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useNames } from '../use-names';
import { LogDetail } from './log-detail';
import { LogExports } from './log-exports';

const RANGES: Array<[TimeRange, string]> = [
  ['15m', 'Last 15 minutes'],
  ['1h', 'Last hour'],
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['all', 'All time'],
  ['custom', 'Custom range'],
];
const CACHE: Array<CacheStatus> = ['HIT', 'SEMANTIC HIT', 'MISS', 'REFRESH', 'DISABLED'];
const PAGE_SIZE = 100;

export function LogsPage({ rest }: { rest: string }) {
  const id = rest.replace(/^\//, '');
  if (id) return <LogDetail id={decodeURIComponent(id)} />;
  return <LogsExplorer />;
}

function LogsExplorer() {
  const identity = useIdentity();
  // The address carries the filters, so Analytics (and a bookmark) can open filtered logs.
  const [draft, setDraft] = useState<LogFilters>(() => filtersFromSearch(window.location.search));
  const [applied, setApplied] = useState<{ filters: LogFilters; at: number }>(() => ({ filters: filtersFromSearch(window.location.search), at: Date.now() }));
  const [rows, setRows] = useState<LogSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [filterError, setFilterError] = useState<FilterError>();
  // Key names for the table and the filter: listed once, not per row.
  const keyNames = useNames().data?.api_key;

  const query = useCallback(() => toLogQuery(applied.filters, applied.at), [applied]);

  const load = useCallback(
    async (after: string | null) => {
      setLoading(true);
      setError(undefined);
      try {
        const page = await identity.api.get<Page<LogSummary>>('/v1/logs', { ...query(), limit: PAGE_SIZE, cursor: after ?? undefined });
        setRows((old) => (after ? [...old, ...page.data] : page.data));
        setCursor(page.has_more ? page.next_cursor : null);
      } catch (failure) {
        setError(failure);
      } finally {
        setLoading(false);
      }
    },
    [identity, query],
  );

  useEffect(() => {
    void load(null);
  }, [load]);
  useEffect(() => {
    const search = searchOf(applied.filters);
    if (search !== window.location.search) window.history.replaceState(null, '', window.location.pathname + search);
  }, [applied]);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    try {
      toLogQuery(draft, Date.now());
      setFilterError(undefined);
      setApplied({ filters: draft, at: Date.now() });
    } catch (failure) {
      if (failure instanceof FilterError) setFilterError(failure);
      else throw failure;
    }
  };
  const set = (name: keyof LogFilters) => (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: event.target.value }));

  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title" tabIndex={-1}>
        Logs
      </h1>
      <form className="filters" onSubmit={apply} aria-label="Log filters">
        <Field label="Time range">
          <select value={draft.range} onChange={set('range')}>
            {RANGES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {draft.range === 'custom' && (
          <>
            <Field label="From">
              <input type="datetime-local" value={draft.from} onChange={set('from')} />
            </Field>
            <Field label="To">
              <input type="datetime-local" value={draft.to} onChange={set('to')} />
            </Field>
          </>
        )}
        <Field label="Status">
          <input value={draft.status} onChange={set('status')} placeholder="4xx,429" />
        </Field>
        <Field label="Provider">
          <input value={draft.provider} onChange={set('provider')} placeholder="openai" />
        </Field>
        <Field label="Model">
          <input value={draft.model} onChange={set('model')} placeholder="gpt-4o" />
        </Field>
        {keyNames?.size ? (
          <Field label="API key">
            <select value={draft.apiKeyId} onChange={set('apiKeyId')}>
              <option value="">Any</option>
              {/* An id from the address (or a key not listed) stays selectable. */}
              {draft.apiKeyId && !keyNames.has(draft.apiKeyId) && <option value={draft.apiKeyId}>{draft.apiKeyId}</option>}
              {[...keyNames].map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="API key id">
            <input value={draft.apiKeyId} onChange={set('apiKeyId')} />
          </Field>
        )}
        {identity.organisationWide && (
          <Field label="Workspace">
            <input value={draft.workspaceId} onChange={set('workspaceId')} placeholder="id or slug" />
          </Field>
        )}
        <Field label="Metadata">
          <input value={draft.metadata} onChange={set('metadata')} placeholder="env=prod,_user=ana" />
        </Field>
        <Field label="Prompt id">
          <input value={draft.promptId} onChange={set('promptId')} />
        </Field>
        <Field label="Cache status">
          <select value={draft.cacheStatus} onChange={set('cacheStatus')}>
            <option value="">Any</option>
            {CACHE.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Trace id">
          <input value={draft.traceId} onChange={set('traceId')} />
        </Field>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilterError(undefined);
              setApplied({ filters: NO_FILTERS, at: Date.now() });
            }}
          >
            Clear
          </button>
        </div>
        {filterError && (
          <p className="error" role="alert">
            {filterError.message}
          </p>
        )}
      </form>

      <ErrorNote error={error} title="Could not load the logs" />
      {loading && rows.length === 0 ? (
        <Loading what="Loading logs" />
      ) : rows.length === 0 && !error ? (
        <Empty>No requests match these filters.</Empty>
      ) : (
        <LogTable rows={rows} keyNames={keyNames} />
      )}
      <div className="actions">
        <span role="status">{rows.length ? `${fmt.count(rows.length)} requests shown${cursor ? ', more to load' : ''}` : ''}</span>
        {cursor && (
          <button type="button" onClick={() => void load(cursor)} disabled={loading}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
      {can(identity, 'logs.export') && <LogExports query={query} />}
    </section>
  );
}

const COLUMNS = ['Time', 'Status', 'Endpoint', 'Provider', 'Model', 'API key', 'Tokens', 'Cost', 'Latency', 'Cache', 'Trace id'];

/** The key's name when known; else its id (or the caller's subject for a call made without a key). */
export function keyLabel(log: Pick<LogSummary, 'api_key_id' | 'auth_subject'>, names: Map<string, string> | undefined): string {
  if (log.api_key_id) return names?.get(log.api_key_id) ?? log.api_key_id;
  return log.auth_subject ?? '—';
}

function LogTable({ rows, keyNames }: { rows: LogSummary[]; keyNames: Map<string, string> | undefined }) {
  return (
    <VirtualList
      items={rows}
      rowHeight={36}
      height={Math.min(480, Math.max(rows.length, 3) * 36)}
      label="Request logs"
      header={
        <div role="rowgroup" className="vlist-head">
          <div role="row" className="log-row">
            {COLUMNS.map((c) => (
              <span role="columnheader" key={c}>
                {c}
              </span>
            ))}
          </div>
        </div>
      }
      renderRow={(log) => (
        <div className="log-row">
          <span role="cell">
            <Link to={`/logs/${encodeURIComponent(log.id)}`} aria-label={`${fmt.time(log.created_at)}: open the log of ${log.trace_id}`}>
              {fmt.time(log.created_at)}
            </Link>
          </span>
          <span role="cell" className={log.status >= 400 ? 'bad' : 'good'}>
            {log.status}
          </span>
          <span role="cell">{log.endpoint}</span>
          <span role="cell">{log.provider ?? '—'}</span>
          <span role="cell">{log.model ?? '—'}</span>
          <span role="cell" title={log.api_key_id ?? undefined}>
            {keyLabel(log, keyNames)}
          </span>
          <span role="cell">{fmt.count(log.total_tokens)}</span>
          <span role="cell">{fmt.usd(log.cost)}</span>
          <span role="cell">{fmt.ms(log.latency_ms)}</span>
          <span role="cell">{log.cache_status}</span>
          <span role="cell" className="mono">
            {log.trace_id}
          </span>
        </div>
      )}
    />
  );
}
