import { afterEach, describe, expect, test } from 'vitest';
import type { Query } from '../api/client';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { TopSection } from './analytics-top';
import { useNames } from '../use-names';

function WithNames() {
  const names = useNames();
  return <TopSection base={BASE} range="7d" names={names.data} />;
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const totals = (requests: number, cost: number, errors = 0) => ({ requests, cost, errors, error_rate: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cache_hits: 0, cache_savings: 0 });
const groups = (data: unknown[]) => ({ object: 'analytics_groups', group_by: 'x', start_time: '', end_time: '', data }) as never;
const list = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const BASE = { start_time: '2026-12-01T00:00:00.000Z', end_time: '2026-12-02T00:00:00.000Z' };

async function open(calls: Array<{ path: string; query?: Query }> = []) {
  const get = async (path: string, query?: Query) => {
    calls.push({ path, query });
    if (path === '/v1/api-keys') return list([{ id: 'k-cheap', name: 'cheap key' }, { id: 'k-dear', name: 'dear key' }]);
    if (path === '/v1/workspaces') return list([{ id: 'ws-1', name: 'Research' }]);
    if (path === '/v1/analytics/groups/api_key') return groups([{ key: 'k-cheap', ...totals(90, 0.5) }, { key: 'k-dear', ...totals(10, 4, 2) }, { key: null, ...totals(3, 0) }]);
    if (path === '/v1/analytics/groups/status') return groups([{ key: '429', ...totals(3, 0, 3) }, { key: '500', ...totals(1, 0, 1) }]);
    if (path === '/v1/analytics/groups/metadata') return groups([{ key: 'prod', ...totals(7, 1) }]);
    return groups([]);
  };
  const view = await render(<WithNames />, fakeIdentity({ get }, ['analytics.view', 'api_keys.list', 'workspaces.list']));
  cleanup = view.unmount;
  await settle();
  await settle();
  return view;
}

const rows = (container: HTMLElement, label: string) =>
  [...container.querySelectorAll(`table[aria-label="${label}"] tbody tr`)].map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent));

describe('the analytics top tables', () => {
  test('API keys by name, largest spend first, each a link to its logs over the same range', async () => {
    const view = await open();
    expect(rows(view.container, 'Top api keys')).toEqual([
      ['dear key', '$4', '10', '2'],
      ['cheap key', '$0.5', '90', '0'],
      ['(none)', '$0', '3', '0'],
    ]);
    const link = view.container.querySelector('table[aria-label="Top api keys"] a') as HTMLAnchorElement;
    expect(link.getAttribute('href')).toBe('/console/logs?range=7d&api_key_id=k-dear');
    // A bar per row, scaled to the largest.
    expect((view.container.querySelector('table[aria-label="Top api keys"] .bar > span') as HTMLElement).style.width).toBe('100%');
  });

  test('ranked by requests the order and the columns change', async () => {
    const view = await open();
    await typeInto(byLabel(view.container, 'Rank by'), 'requests');
    expect(rows(view.container, 'Top api keys')[0]).toEqual(['cheap key', '90', '$0.5', '0']);
  });

  test('errors by status with their class and share, each opening the logs of that status', async () => {
    const calls: Array<{ path: string; query?: Query }> = [];
    const view = await open(calls);
    expect(calls.find((c) => c.path === '/v1/analytics/groups/status')?.query).toEqual({ ...BASE, status: '4xx,5xx' });
    expect(rows(view.container, 'Errors by status')).toEqual([
      ['429', '4xx', '3', '75.0%'],
      ['500', '5xx', '1', '25.0%'],
    ]);
    expect(view.container.querySelector('table[aria-label="Errors by status"] a')?.getAttribute('href')).toBe('/console/logs?range=7d&status=429');
  });

  test('a metadata key gets its own table, linking to logs filtered by key=value', async () => {
    const calls: Array<{ path: string; query?: Query }> = [];
    const view = await open(calls);
    await typeInto(byLabel(view.container, 'Metadata key'), 'env');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Show metadata key')!);
    await settle();
    expect(calls.find((c) => c.path === '/v1/analytics/groups/metadata')?.query).toEqual({ ...BASE, metadata_key: 'env' });
    expect(rows(view.container, 'Top metadata env')).toEqual([['prod', '$1', '7', '0']]);
    expect(view.container.querySelector('table[aria-label="Top metadata env"] a')?.getAttribute('href')).toBe('/console/logs?range=7d&metadata=env%3Dprod');
  });
});
