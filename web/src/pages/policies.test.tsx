import { afterEach, describe, expect, test, vi } from 'vitest';
import type { UsageLimitsEntity, UsageLimitsPolicy } from '../api/types';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { PoliciesPage } from './policies';

vi.mock('../components/code-editor/view', () => {
  throw new Error('CodeMirror is tried in the browser tests; here the plain text box stands in');
});

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const budget = {
  id: 'u1', object: 'usage_limits_policy', name: 'team budget', organisation_id: 'o1', workspace_id: null, type: 'cost', credit_limit: 10, alert_threshold: null, periodic_reset: 'monthly',
  periodic_reset_days: null, next_usage_reset_at: null, last_reset_at: null, conditions: [], group_by: [{ key: 'api_key' }], status: 'active', created_at: '', updated_at: '',
} as UsageLimitsPolicy;
const entity: UsageLimitsEntity = { entity_id: 'e1', group: { api_key: 'key-1' }, usage: 2.5, credit_limit: 10, remaining: 7.5, alert_threshold_reached: false, next_usage_reset_at: null };
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;

const workspaces = [
  { id: 'ws-research', object: 'workspace', name: 'Research', slug: 'research' },
  { id: 'ws-lab', object: 'workspace', name: 'Lab', slug: 'lab' },
];

async function open(sent: unknown[][], scopes = ['policies.list', 'policies.read', 'policies.create', 'policies.update', 'policies.delete'], organisationWide = true) {
  const get = async (path: string) => page(path === '/v2/policies/usage-limits' ? [budget] : path === '/v1/workspaces' ? workspaces : path.endsWith('/entities') ? [entity] : []);
  const view = await render(<PoliciesPage />, { ...fakeIdentity({ get, send: async (...args) => (sent.push(args), {} as never) }, scopes), organisationWide });
  cleanup = view.unmount;
  await settle();
  return view;
}

describe('the policies page', () => {
  test('a usage limit with no limit is refused before sending; with one it is sent as the spec wants', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New usage limit'));
    await typeInto(byLabel(view.container, 'Name'), 'per key');
    await click(button(view.container, 'Add group'));
    await click(button(view.container, 'Add group'));
    await typeInto(byLabel(view.container, 'Group 2 key'), 'metadata.team');
    await click(button(view.container, 'Create usage limit'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toBe('Not saved: credit_limit must be > 0');
    expect(sent).toEqual([]);

    await typeInto(byLabel(view.container, 'Limit'), '25');
    await click(button(view.container, 'Create usage limit'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v2/policies/usage-limits', { name: 'per key', type: 'cost', credit_limit: 25, alert_threshold: null, periodic_reset: null, group_by: [{ key: 'api_key' }, { key: 'metadata.team' }], conditions: [] }],
    ]);
  });

  test('a new rate limit is sent with its unit and value', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New rate limit'));
    await typeInto(byLabel(view.container, 'Name'), 'burst');
    await typeInto(byLabel(view.container, 'Limit'), '60');
    await typeInto(byLabel(view.container, 'Per'), 'hour');
    await click(button(view.container, 'Create rate limit'));
    await settle();
    expect(sent).toEqual([['POST', '/v2/policies/rate-limits', { name: 'burst', type: 'requests', target: 'llm', unit: 'hour', value: 60, group_by: [], conditions: [] }]]);
  });

  test("an entity's current usage is shown, with its group", async () => {
    const view = await open([]);
    await click(button(view.container, 'Show current usage of team budget'));
    await settle();
    const usage = view.container.querySelector('table[aria-label="Usage per entity"]');
    expect(usage?.textContent).toContain('api_key=key-1');
    expect(usage?.textContent).toContain('2.5 / 10');
  });

  test('a read-only key gets no New buttons and disabled Edit and Delete', async () => {
    const view = await open([], ['policies.list', 'policies.read']);
    expect(button(view.container, 'New usage limit')).toBeUndefined();
    expect(button(view.container, 'Edit team budget').disabled).toBe(true);
    expect(button(view.container, 'Delete team budget').disabled).toBe(true);
  });

  test('a usage limit resetting every N days, for a workspace picked from the list', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent, ['policies.list', 'policies.create', 'policies.update', 'workspaces.list']);
    await click(button(view.container, 'New usage limit'));
    await settle();
    await typeInto(byLabel(view.container, 'Name'), 'lab tokens');
    await typeInto(byLabel(view.container, 'Counts'), 'tokens');
    await typeInto(byLabel(view.container, 'Limit'), '100000');
    await typeInto(byLabel(view.container, 'Resets'), 'days');
    await typeInto(byLabel(view.container, 'Reset every (days)'), '14');
    const choice = byLabel<HTMLSelectElement>(view.container, 'Workspace');
    expect([...choice.options].map((o) => o.text)).toEqual(['The whole organisation', 'Research', 'Lab']);
    await typeInto(choice, 'ws-lab');
    await click(button(view.container, 'Create usage limit'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v2/policies/usage-limits', { name: 'lab tokens', type: 'tokens', workspace_id: 'ws-lab', credit_limit: 100000, alert_threshold: null, periodic_reset: null, periodic_reset_days: 14, group_by: [], conditions: [] }],
    ]);
  });

  test('a workspace key is not offered a workspace: its policies are its workspace\'s', async () => {
    const view = await open([], undefined, false);
    await click(button(view.container, 'New rate limit'));
    await settle();
    expect(() => byLabel(view.container, 'Workspace')).toThrow('no control labelled Workspace');
  });

  test('an edit from every N days back to monthly sends periodic_reset_days null', async () => {
    const sent: unknown[][] = [];
    const everyTen = { ...budget, periodic_reset: null, periodic_reset_days: 10 } as UsageLimitsPolicy;
    const get = async (path: string) => page(path === '/v2/policies/usage-limits' ? [everyTen] : []);
    const view = await render(<PoliciesPage />, fakeIdentity({ get, send: async (...args) => (sent.push(args), {} as never) }, ['policies.list', 'policies.update']));
    cleanup = view.unmount;
    await settle();
    expect(view.container.querySelector('table')?.textContent).toContain('every 10 days');
    await click(button(view.container, 'Edit team budget'));
    expect(byLabel<HTMLInputElement>(view.container, 'Reset every (days)').value).toBe('10');
    await typeInto(byLabel(view.container, 'Resets'), 'monthly');
    await click(button(view.container, 'Save usage limit'));
    await settle();
    expect(sent).toEqual([
      ['PUT', '/v2/policies/usage-limits/u1', { name: 'team budget', credit_limit: 10, alert_threshold: null, periodic_reset: 'monthly', periodic_reset_days: null, group_by: [{ key: 'api_key' }], conditions: [] }],
    ]);
  });

  test('conditions and group-by rows and their JSON stay in step; keys the rows do not show are kept', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New rate limit'));
    const json = () => JSON.parse(byLabel<HTMLTextAreaElement>(view.container, 'Conditions and group by (JSON)').value) as unknown;
    await click(button(view.container, 'Add condition'));
    await typeInto(byLabel(view.container, 'Condition 1 key'), 'metadata.env');
    await typeInto(byLabel(view.container, 'Condition 1 value'), 'prod');
    await click(button(view.container, 'Add group'));
    expect(json()).toEqual({ conditions: [{ key: 'metadata.env', value: 'prod' }], group_by: [{ key: 'api_key' }] });

    await typeInto(byLabel(view.container, 'Conditions and group by (JSON)'), JSON.stringify({ conditions: [{ key: 'workspace_id', value: '*', excludes: 'lab' }], group_by: [{ key: 'metadata.team' }] }));
    expect(byLabel<HTMLInputElement>(view.container, 'Condition 1 excludes').value).toBe('lab');
    expect(byLabel<HTMLInputElement>(view.container, 'Group 1 key').value).toBe('metadata.team');
    await typeInto(byLabel(view.container, 'Condition 1 value'), 'research');
    expect(json()).toEqual({ conditions: [{ key: 'workspace_id', value: 'research', excludes: 'lab' }], group_by: [{ key: 'metadata.team' }] });

    await typeInto(byLabel(view.container, 'Name'), 'per team');
    await typeInto(byLabel(view.container, 'Limit'), '5');
    await click(button(view.container, 'Create rate limit'));
    await settle();
    expect(sent).toEqual([['POST', '/v2/policies/rate-limits', { name: 'per team', type: 'requests', target: 'llm', unit: 'minute', value: 5, conditions: [{ key: 'workspace_id', value: 'research', excludes: 'lab' }], group_by: [{ key: 'metadata.team' }] }]]);
  });

  test('the list shows each usage limit\'s usage against its limit, the highest entity first', async () => {
    const second = { ...entity, entity_id: 'e2', group: { api_key: 'key-2' }, usage: 7 };
    const get = async (path: string) => page(path === '/v2/policies/usage-limits' ? [budget] : path.endsWith('/entities') ? [entity, second] : []);
    const view = await render(<PoliciesPage />, fakeIdentity({ get }, ['policies.list', 'policies.read']));
    cleanup = view.unmount;
    await settle();
    const meter = view.container.querySelector('table[aria-label="Usage-limit policies"] meter') as HTMLMeterElement;
    expect(meter.getAttribute('aria-label')).toBe('team budget: used 7 of 10');
    expect(meter.closest('td')?.textContent).toContain('7 / 10 (highest of 2)');
  });
});
