import { afterEach, describe, expect, test } from 'vitest';
import type { ApiKey } from '../api/types';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { KeysPage } from './keys';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const SCOPES = ['api_keys.list', 'api_keys.create', 'api_keys.update', 'api_keys.delete', 'analytics.view', 'logs.list', 'completions.write', 'configs.list', 'audit_logs.list', 'users.list'];
const budgeted = {
  id: 'k1', object: 'api_key', name: 'team key', type: 'workspace', sub_type: 'user', organisation_id: 'o1', workspace_id: 'ws-1', user_id: 'u1', scopes: ['completions.write'], status: 'active',
  masked_key: 'gw-ab…yz', expires_at: null, auto_created: false, created_at: '2026-01-01T00:00:00Z', updated_at: '', usage_limits: { type: 'cost', credit_limit: 4, periodic_reset: 'monthly' },
} as ApiKey;

async function open(sent: unknown[][], asked: string[] = []) {
  const get = async (path: string, query?: Record<string, unknown>) => {
    asked.push(path);
    if (path === '/v1/api-keys') return page([budgeted]);
    if (path === '/v1/admin/users') return page([{ id: 'u1', email: 'ada@example.test' }]);
    if (path === '/v1/analytics/groups/api_key') return { object: 'analytics_groups', data: [{ key: 'k1', cost: 3, requests: 7, total_tokens: 900 }] } as never;
    if (path === '/v1/logs') return page(query?.api_key_id === 'k1' ? [{ created_at: '2026-12-01T08:00:00Z' }] : []);
    return page([]);
  };
  const view = await render(<KeysPage />, fakeIdentity({ get: get as never, send: async (...args) => (sent.push(args), { name: 'x', key: 'gw-secret' } as never) }, SCOPES));
  cleanup = view.unmount;
  await settle();
  await settle();
  return view;
}

describe('the keys page', () => {
  test('a key shows its owner, spend this period against its budget, and last use', async () => {
    const view = await open([]);
    const row = [...view.container.querySelectorAll('tbody tr')][0]!;
    const cells = [...row.querySelectorAll('td')].map((td) => td.textContent);
    expect(cells[1]).toBe('ada@example.test');
    expect(cells[5]).toBe('$3');
    expect(cells[6]).toBe('$4 monthly');
    expect(cells[7]).toBe('$3 (75.0%)');
    expect(cells[4]).not.toBe('never');
    expect(row.querySelector('meter')?.getAttribute('value')).toBe('0.75');
  });

  test('a role preset fills the scopes; the models, a budget, rate limit and expiry go in the create body', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New key'));
    await typeInto(byLabel(view.container, 'Name'), 'ci');
    await typeInto(byLabel(view.container, 'Role preset'), 'manager');
    const ticked = [...view.container.querySelectorAll<HTMLInputElement>('.scope-group label.check input')].filter((c) => c.checked && !c.getAttribute('aria-label')).length;
    expect(ticked).toBe(SCOPES.length - 2); // every scope but audit_logs.list and users.list
    await typeInto(byLabel(view.container, 'Role preset'), 'gateway');
    await typeInto(byLabel(view.container, 'Budget counts'), 'cost');
    await typeInto(byLabel(view.container, 'Budget limit'), '25');
    await typeInto(byLabel(view.container, 'Rate limit counts'), 'requests');
    await typeInto(byLabel(view.container, 'Rate limit'), '60');
    await typeInto(byLabel(view.container, 'Expires on'), '2027-01-31');
    await typeInto(byLabel(view.container, 'Models allowed'), 'gpt-4o-mini, @oai/*  gpt-4o-mini');
    await click(button(view.container, 'Create key'));
    await settle();
    expect(sent).toEqual([
      [
        'POST',
        '/v1/api-keys/workspace/service',
        {
          name: 'ci',
          scopes: ['completions.write'],
          workspace_id: 'ws-1',
          usage_limits: { type: 'cost', credit_limit: 25, periodic_reset: 'monthly' },
          rate_limits: [{ type: 'requests', unit: 'minute', value: 60 }],
          expires_at: '2027-01-31T23:59:59.000Z',
          allowed_models: ['gpt-4o-mini', '@oai/*'],
        },
      ],
    ]);
  });

  test('a budget the spec refuses (none given) is named and not sent; the preset shows Custom after an edit', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New key'));
    await typeInto(byLabel(view.container, 'Name'), 'ci');
    await click(view.container.querySelector<HTMLInputElement>('input[aria-label="Every logs scope"]')!);
    expect(byLabel<HTMLSelectElement>(view.container, 'Role preset').value).toBe('custom');
    await typeInto(byLabel(view.container, 'Budget counts'), 'tokens');
    await click(button(view.container, 'Create key'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: usage_limits\.credit_limit/);
    expect(sent).toEqual([]);
  });

  test("a key's limits are edited: a new budget is sent, an emptied rate limit, expiry and model list are removed (null)", async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'Edit the limits of team key'));
    expect(byLabel<HTMLInputElement>(view.container, 'Budget limit').value).toBe('4');
    await typeInto(byLabel(view.container, 'Budget limit'), '10');
    await typeInto(byLabel(view.container, 'Budget resets'), 'weekly');
    await click(button(view.container, 'Save limits'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/api-keys/k1', { usage_limits: { type: 'cost', credit_limit: 10, periodic_reset: 'weekly' }, rate_limits: null, expires_at: null, allowed_models: null }]]);
  });
});
