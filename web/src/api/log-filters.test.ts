import { describe, expect, test } from 'vitest';
import { queryString } from './client';
import { FilterError, filtersFromSearch, NO_FILTERS, searchOf, toExportFilters, toLogQuery } from './log-filters';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

describe('log filters -> the query GET /v1/logs takes', () => {
  test('a preset range starts that long before now; empty fields are left out', () => {
    expect(queryString(toLogQuery(NO_FILTERS, NOW))).toBe('?start_time=2026-11-26T12%3A00%3A00.000Z');
    expect(toLogQuery({ ...NO_FILTERS, range: 'all' }, NOW)).toEqual({});
  });

  test('every field maps to its parameter, trimmed; statuses lose spaces and are lower-cased', () => {
    const query = toLogQuery(
      { ...NO_FILTERS, range: 'all', status: ' 4XX, 500 ', provider: ' openai ', model: 'gpt-4o', apiKeyId: 'k1', workspaceId: 'team-b', metadata: 'env=prod, _user=ana', promptId: 'p1', cacheStatus: 'SEMANTIC HIT', traceId: 't-1' },
      NOW,
    );
    expect(query).toEqual({ status: '4xx,500', provider: 'openai', model: 'gpt-4o', api_key_id: 'k1', workspace_id: 'team-b', metadata: 'env=prod,_user=ana', prompt_id: 'p1', cache_status: 'SEMANTIC HIT', trace_id: 't-1' });
    expect(queryString(query)).toContain('cache_status=SEMANTIC+HIT');
  });

  test('a custom range sends both ends as ISO times and refuses an end before the start', () => {
    const query = toLogQuery({ ...NO_FILTERS, range: 'custom', from: '2026-11-01T00:00Z', to: '2026-11-02T00:00Z' }, NOW);
    expect(query).toEqual({ start_time: '2026-11-01T00:00:00.000Z', end_time: '2026-11-02T00:00:00.000Z' });
    expect(() => toLogQuery({ ...NO_FILTERS, range: 'custom', from: '2026-11-02T00:00Z', to: '2026-11-01T00:00Z' }, NOW)).toThrow(FilterError);
  });

  test('input the API would refuse is caught here, naming the field', () => {
    const status = (() => {
      try {
        toLogQuery({ ...NO_FILTERS, status: 'abc' }, NOW);
      } catch (error) {
        return error as FilterError;
      }
    })();
    expect(status?.field).toBe('status');
    expect(() => toLogQuery({ ...NO_FILTERS, metadata: 'env' }, NOW)).toThrow(/not key=value/);
  });

  test('export filters take metadata as an object and drop what exports do not filter on', () => {
    expect(toExportFilters({ status: '5xx', metadata: 'env=prod,team=a=b', workspace_id: 'w', cache_status: 'HIT', limit: 10 })).toEqual({ status: '5xx', metadata: { env: 'prod', team: 'a=b' } });
  });
});

describe('log filters <-> the Logs page address', () => {
  test('defaults are left out, the rest round-trips', () => {
    expect(searchOf(NO_FILTERS)).toBe('');
    const filters = { ...NO_FILTERS, range: '7d' as const, apiKeyId: 'k 1', metadata: '_user=ana', cacheStatus: 'SEMANTIC HIT' as const };
    expect(searchOf(filters)).toBe('?range=7d&api_key_id=k+1&metadata=_user%3Dana&cache_status=SEMANTIC+HIT');
    expect(filtersFromSearch(searchOf(filters))).toEqual(filters);
  });

  test('an unknown range or cache status in the address falls back to the default', () => {
    expect(filtersFromSearch('?range=9y&cache_status=MAYBE&model=gpt-4o')).toEqual({ ...NO_FILTERS, model: 'gpt-4o' });
  });
});
