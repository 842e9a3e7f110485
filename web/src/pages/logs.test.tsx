import { afterEach, describe, expect, test } from 'vitest';
import type { Query } from '../api/client';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { LogsPage } from './logs';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  window.history.replaceState(null, '', '/');
});

function page(rows: number) {
  return {
    object: 'list',
    has_more: false,
    next_cursor: null,
    data: Array.from({ length: rows }, (_, i) => ({ id: `log-${i}`, trace_id: `trace-${i}`, created_at: '2026-11-27T12:00:00.000Z', status: 200, provider: 'openai', model: 'gpt-4o', total_tokens: 10, cost: 0, latency_ms: 5, cache_status: 'MISS' })),
  };
}

describe('the logs explorer', () => {
  test('the filter form becomes the query of GET /v1/logs on Apply', async () => {
    const calls: Array<{ path: string; query: Query | undefined }> = [];
    const identity = fakeIdentity({ get: async (path, query) => (calls.push({ path, query }), page(1)) as never }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    expect(calls[0]).toMatchObject({ path: '/v1/logs', query: { limit: 100 } });

    await typeInto(byLabel(view.container, 'Status'), '5xx');
    await typeInto(byLabel(view.container, 'Trace id'), ' abc ');
    await typeInto(byLabel(view.container, 'Cache status'), 'HIT');
    await typeInto(byLabel(view.container, 'Time range'), 'all');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Apply filters')!);
    await settle();
    expect(calls.at(-1)!.query).toEqual({ status: '5xx', trace_id: 'abc', cache_status: 'HIT', limit: 100, cursor: undefined });
  });

  test('a filter the API would refuse is shown at once and not sent', async () => {
    const calls: unknown[] = [];
    const identity = fakeIdentity({ get: async (...args) => (calls.push(args), page(0)) as never }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    const before = calls.length;
    await typeInto(byLabel(view.container, 'Metadata'), 'env');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Apply filters')!);
    await settle();
    expect(calls.length).toBe(before);
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/not key=value/);
  });

  test('the API error message is shown when the list fails', async () => {
    const { ApiFailure } = await import('../api/client');
    const identity = fakeIdentity({ get: async () => Promise.reject(new ApiFailure(403, 'missing_scope', 'This key lacks logs.list')) }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toContain('This key lacks logs.list');
  });

  test('a thousand rows: only a window of them is in the DOM', async () => {
    const identity = fakeIdentity({ get: async () => page(1000) as never }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    const rendered = view.container.querySelectorAll('.vlist-row').length;
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(40);
    expect(view.container.querySelector('[role="table"]')?.getAttribute('aria-rowcount')).toBe('1000');
  });

  test('no export button without logs.export', async () => {
    const identity = fakeIdentity({ get: async () => page(1) as never }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    expect([...view.container.querySelectorAll('button')].some((b) => b.textContent === 'Export these logs')).toBe(false);
  });

  test('filters come from the address (a link from Analytics) and Apply writes them back to it', async () => {
    window.history.replaceState(null, '', '/console/logs?range=7d&api_key_id=k-1&metadata=_user%3Dana');
    const calls: Array<Query | undefined> = [];
    const identity = fakeIdentity({ get: async (_path, query) => (calls.push(query), page(1)) as never }, ['logs.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    expect(calls[0]).toMatchObject({ api_key_id: 'k-1', metadata: '_user=ana', limit: 100 });
    expect(byLabel<HTMLInputElement>(view.container, 'API key id').value).toBe('k-1');
    expect(byLabel<HTMLSelectElement>(view.container, 'Time range').value).toBe('7d');

    await typeInto(byLabel(view.container, 'Status'), '5xx');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Apply filters')!);
    await settle();
    expect(window.location.pathname + window.location.search).toBe('/console/logs?range=7d&status=5xx&api_key_id=k-1&metadata=_user%3Dana');
  });
});
