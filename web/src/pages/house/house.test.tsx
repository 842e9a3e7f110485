import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../../test/render';
import { AuditPage } from './audit';
import { McpPage } from './mcp';
import { catalogRows } from './models';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const totals = { errors: 0, error_rate: 0, prompt_tokens: 0, completion_tokens: 0, latency_avg_ms: null, latency_p50_ms: null, latency_p90_ms: null, latency_p99_ms: null, cache_hits: 0, cache_hit_rate: 0, cache_savings: 0, rescued_requests: 0 };

describe('the model catalog', () => {
  test('one row per model name whoever offers it; a price per million tokens from what priced calls cost; a model called without a price is flagged; the most used first', () => {
    const rows = catalogRows(
      [
        { id: '@fake/gpt-4o', object: 'model', created: 0, owned_by: 'openai', provider: '@fake' },
        { id: '@other/gpt-4o', object: 'model', created: 0, owned_by: 'openai', provider: '@other' },
        { id: 'idle', object: 'model', created: 0, owned_by: 'openai' },
      ],
      [
        { key: 'gpt-4o', requests: 4, cost: 0.02, total_tokens: 4000, unpriced_requests: 0, ...totals },
        { key: 'mystery', requests: 2, cost: 0, total_tokens: 300, unpriced_requests: 2, ...totals },
      ],
    );
    expect(rows).toEqual([
      { id: 'gpt-4o', providers: ['@fake', '@other'], requests: 4, cost: 0.02, pricePerMillion: 5, unpriced: false },
      { id: 'mystery', providers: [], requests: 2, cost: 0, pricePerMillion: null, unpriced: true },
      { id: 'idle', providers: ['openai'], requests: 0, cost: 0, pricePerMillion: null, unpriced: false },
    ]);
  });
});

describe('the audit log', () => {
  test('filters become the list query; an entry opens with its request body', async () => {
    const asked: unknown[] = [];
    const entry = {
      id: 'a1', object: 'audit_log', organisation_id: 'o1', workspace_id: null, actor: { user_id: null, api_key_id: 'k1', credential: 'api_key', subject: 'admin key' },
      action: 'createConfig', method: 'POST', path: '/v1/configs', resource_type: 'config', resource_id: 'c1', status: 201, ip_address: '127.0.0.1', trace_id: null, request: { name: 'prod' }, created_at: '2026-12-01T00:00:00Z',
    };
    const view = await render(<AuditPage />, fakeIdentity({ get: async (path: string, query?: unknown) => (asked.push([path, query]), page([entry])) }, ['audit_logs.list']));
    cleanup = view.unmount;
    await settle();
    await typeInto(byLabel(view.container, 'Action'), 'createConfig');
    await click(button(view.container, 'Apply filters'));
    await settle();
    expect(asked.at(-1)).toEqual(['/v1/audit-logs', { limit: 100, action: 'createConfig' }]);
    await click(view.container.querySelector('button[aria-label^="Details of createConfig"]')!);
    const region = view.container.querySelector('[role="region"]')!;
    expect(region.textContent).toContain('POST /v1/configs');
    expect(region.textContent).toContain('"name": "prod"');
  });
});

describe('the MCP page', () => {
  test('a server shows the gateway URL to copy and its tools; the connection test reports its answer', async () => {
    const server = { id: 's1', name: 'tools', slug: 'tools', url: 'http://gw.test/tools/mcp', status: 'active', transport: 'http', auth_type: 'none', created_at: '' };
    const sent: unknown[][] = [];
    const get = async (path: string) =>
      path === '/v1/mcp-servers/s1' ? (server as never) : path.endsWith('/capabilities') ? ({ data: [{ name: 'echo', type: 'tool', enabled: true, description: 'Echoes', annotations: { readOnlyHint: true } }], total: 1 } as never) : page([]);
    const send = async (...args: unknown[]) => (sent.push(args), { success: true, status_code: 200, response_time_ms: 12, url: server.url, server_name: 'fake', error: null } as never);
    const view = await render(<McpPage rest="/servers/s1" />, fakeIdentity({ get, send: send as never }, ['mcp_servers.list', 'mcp_servers.read']));
    cleanup = view.unmount;
    await settle();
    await settle();
    expect(view.container.textContent).toContain('http://gw.test/tools/mcp');
    expect(button(view.container, 'Copy the gateway URL')).toBeTruthy();
    expect(view.container.querySelector('table[aria-label="Capabilities"]')?.textContent).toContain('readOnlyHint');
    await click(button(view.container, 'Test connection'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/mcp-servers/s1/test']]);
    expect(view.container.querySelector('p[role="status"]')?.textContent).toBe('Connected in 12 ms to fake');
  });
});
