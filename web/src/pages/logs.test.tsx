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
    // Without api_keys.list the key filter is a free-text id.
    expect(byLabel<HTMLInputElement>(view.container, 'API key id').value).toBe('k-1');
    expect(byLabel<HTMLSelectElement>(view.container, 'Time range').value).toBe('7d');

    await typeInto(byLabel(view.container, 'Status'), '5xx');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Apply filters')!);
    await settle();
    expect(window.location.pathname + window.location.search).toBe('/console/logs?range=7d&status=5xx&api_key_id=k-1&metadata=_user%3Dana');
  });

  test('endpoint and API key columns: the key by name from one api-keys list, its id when unknown; the key filter is a select of names', async () => {
    const rows = [
      { ...page(1).data[0], id: 'a', endpoint: 'proxy', api_key_id: 'k-1' },
      { ...page(1).data[0], id: 'b', endpoint: 'messages', api_key_id: 'k-gone' },
    ];
    const calls: Array<{ path: string; query: Query | undefined }> = [];
    const get = async (path: string, query?: Query) => {
      calls.push({ path, query });
      if (path === '/v1/api-keys') return { object: 'list', has_more: false, next_cursor: null, data: [{ id: 'k-1', name: 'Checkout service' }] };
      return { object: 'list', has_more: false, next_cursor: null, data: rows };
    };
    const identity = fakeIdentity({ get: get as never }, ['logs.list', 'api_keys.list']);
    const view = await render(<LogsPage rest="" />, identity);
    cleanup = view.unmount;
    await settle();
    await settle();
    const headers = [...view.container.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent);
    expect(headers).toContain('Endpoint');
    expect(headers).toContain('API key');
    const cells = [...view.container.querySelectorAll('.vlist-row')].map((r) => [...r.querySelectorAll('[role="cell"]')].map((c) => c.textContent));
    const at = (name: string) => headers.indexOf(name);
    expect(cells.map((c) => [c[at('Endpoint')], c[at('API key')]])).toEqual([
      ['proxy', 'Checkout service'],
      ['messages', 'k-gone'],
    ]);
    expect(calls.filter((c) => c.path === '/v1/api-keys')).toHaveLength(1);

    const filter = byLabel<HTMLSelectElement>(view.container, 'API key');
    expect(filter.tagName).toBe('SELECT');
    expect([...filter.options].map((o) => o.textContent)).toEqual(['Any', 'Checkout service']);
    await typeInto(filter, 'k-1');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Apply filters')!);
    await settle();
    expect(calls.at(-1)).toMatchObject({ path: '/v1/logs', query: { api_key_id: 'k-1' } });
  });

  test('a key id from the address that is not listed stays selected in the key filter', async () => {
    window.history.replaceState(null, '', '/console/logs?api_key_id=k-other');
    const get = async (path: string) =>
      path === '/v1/api-keys' ? { object: 'list', has_more: false, next_cursor: null, data: [{ id: 'k-1', name: 'Checkout service' }] } : page(1);
    const view = await render(<LogsPage rest="" />, fakeIdentity({ get: get as never }, ['logs.list', 'api_keys.list']));
    cleanup = view.unmount;
    await settle();
    await settle();
    const filter = byLabel<HTMLSelectElement>(view.container, 'API key');
    expect(filter.value).toBe('k-other');
    expect([...filter.options].map((o) => o.textContent)).toEqual(['Any', 'k-other', 'Checkout service']);
  });

  test("a log's detail names its API key (its id beside it) and its endpoint", async () => {
    const log = { ...page(1).data[0], id: 'log-1', endpoint: 'proxy', api_key_id: 'k-1', prompt_tokens: 4, completion_tokens: 6, retry_count: 0, stream: false, route: [], metadata: {}, request_headers: {}, request_body: null, response_body: null, guardrail_results: null, error: null };
    const get = async (path: string) =>
      path === '/v1/api-keys' ? { object: 'list', has_more: false, next_cursor: null, data: [{ id: 'k-1', name: 'Checkout service' }] } : log;
    const view = await render(<LogsPage rest="/log-1" />, fakeIdentity({ get: get as never }, ['logs.list', 'api_keys.list']));
    cleanup = view.unmount;
    await settle();
    await settle();
    const facts = Object.fromEntries([...view.container.querySelectorAll('dl[aria-label="Summary"] > div')].map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]));
    expect(facts).toMatchObject({ 'API key': 'Checkout service', 'API key id': 'k-1', Endpoint: 'proxy' });
  });
});
