/**
 * The logs explorer's filter form as the query GET /v1/logs (and analytics) take: a time range
 * (a preset relative to now, or from/to), status codes or classes, and exact-match fields.
 */
import type { CacheStatus, LogQuery } from './types';

export const TIME_RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type TimeRange = keyof typeof TIME_RANGES | 'all' | 'custom';

export interface LogFilters {
  range: TimeRange;
  /** datetime-local values (the browser's time zone), used when range is custom. */
  from: string;
  to: string;
  status: string;
  provider: string;
  model: string;
  apiKeyId: string;
  workspaceId: string;
  /** `key=value` pairs separated by commas. */
  metadata: string;
  promptId: string;
  cacheStatus: CacheStatus | '';
  traceId: string;
}

export const NO_FILTERS: LogFilters = {
  range: '24h',
  from: '',
  to: '',
  status: '',
  provider: '',
  model: '',
  apiKeyId: '',
  workspaceId: '',
  metadata: '',
  promptId: '',
  cacheStatus: '',
  traceId: '',
};

export class FilterError extends Error {
  constructor(
    readonly field: keyof LogFilters,
    message: string,
  ) {
    super(message);
  }
}

function isoOf(local: string, field: keyof LogFilters): string | undefined {
  if (!local) return undefined;
  const ms = Date.parse(local);
  if (Number.isNaN(ms)) throw new FilterError(field, `${local} is not a date and time`);
  return new Date(ms).toISOString();
}

/** The API query for these filters at `now`; throws FilterError for input the API would refuse. */
export function toLogQuery(filters: LogFilters, now: number): LogQuery {
  const query: LogQuery = {};
  if (filters.range === 'custom') {
    query.start_time = isoOf(filters.from, 'from');
    query.end_time = isoOf(filters.to, 'to');
    if (query.start_time && query.end_time && query.start_time >= query.end_time) throw new FilterError('to', 'The end of the range must be after its start');
  } else if (filters.range !== 'all') {
    query.start_time = new Date(now - TIME_RANGES[filters.range]).toISOString();
  }
  const status = filters.status.replace(/\s+/g, '');
  if (status) {
    if (!/^([1-5]([0-9][0-9]|xx))(,[1-5]([0-9][0-9]|xx))*$/i.test(status)) throw new FilterError('status', 'Status: codes (429) or classes (4xx), separated by commas');
    query.status = status.toLowerCase();
  }
  const metadata = filters.metadata
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean);
  for (const pair of metadata) if (pair.indexOf('=') <= 0) throw new FilterError('metadata', `Metadata: "${pair}" is not key=value`);
  if (metadata.length) query.metadata = metadata.join(',');
  const exact: Array<[keyof LogQuery, string]> = [
    ['provider', filters.provider],
    ['model', filters.model],
    ['api_key_id', filters.apiKeyId],
    ['workspace_id', filters.workspaceId],
    ['prompt_id', filters.promptId],
    ['trace_id', filters.traceId],
  ];
  for (const [name, value] of exact) if (value.trim()) (query as Record<string, string>)[name] = value.trim();
  if (filters.cacheStatus) query.cache_status = filters.cacheStatus;
  return query;
}

/** The same filters for a log export body (LogExportFilters takes no workspace, cache status or cursor). */
export function toExportFilters(query: LogQuery): Record<string, string | Record<string, string>> {
  const { workspace_id: _w, cache_status: _c, limit: _l, cursor: _cur, metadata, ...rest } = query;
  const filters: Record<string, string | Record<string, string>> = {};
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) filters[name] = String(value);
  if (metadata) filters.metadata = Object.fromEntries(metadata.split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  return filters;
}

/** Each filter's name in the Logs page's address (`/console/logs?range=24h&api_key_id=…`), so other pages link to filtered logs. */
const SEARCH_NAMES: Record<keyof LogFilters, string> = {
  range: 'range',
  from: 'from',
  to: 'to',
  status: 'status',
  provider: 'provider',
  model: 'model',
  apiKeyId: 'api_key_id',
  workspaceId: 'workspace_id',
  metadata: 'metadata',
  promptId: 'prompt_id',
  cacheStatus: 'cache_status',
  traceId: 'trace_id',
};
const RANGE_NAMES: readonly string[] = [...Object.keys(TIME_RANGES), 'all', 'custom'];
const CACHE_NAMES: readonly string[] = ['HIT', 'SEMANTIC HIT', 'MISS', 'REFRESH', 'DISABLED'];

/** The filters a Logs address carries (unknown or malformed values left at their default). */
export function filtersFromSearch(search: string): LogFilters {
  const params = new URLSearchParams(search);
  const filters: LogFilters = { ...NO_FILTERS };
  for (const [field, name] of Object.entries(SEARCH_NAMES) as Array<[keyof LogFilters, string]>) {
    const value = params.get(name);
    if (value !== null) (filters as unknown as Record<string, string>)[field] = value;
  }
  if (!RANGE_NAMES.includes(filters.range)) filters.range = NO_FILTERS.range;
  if (!CACHE_NAMES.includes(filters.cacheStatus)) filters.cacheStatus = '';
  return filters;
}

/** The address search string of these filters ('' when they are the defaults). */
export function searchOf(filters: Partial<LogFilters>): string {
  const params = new URLSearchParams();
  for (const [field, name] of Object.entries(SEARCH_NAMES) as Array<[keyof LogFilters, string]>) {
    const value = filters[field];
    if (value && value !== NO_FILTERS[field]) params.set(name, value);
  }
  const search = params.toString();
  return search ? `?${search}` : '';
}
