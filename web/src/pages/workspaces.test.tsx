import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { WorkspacesPage } from './workspaces';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const workspace = { id: 'w1', object: 'workspace', name: 'Research', slug: 'research', description: null, is_default: false };
const ada = { id: 'u1', object: 'user', email: 'ada@example.test', status: 'active' };
const member = { object: 'workspace_member', workspace_id: 'w1', user_id: 'u2', role: 'member', email: 'bo@example.test', first_name: 'Bo', last_name: null };
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const lists: Record<string, unknown[]> = { '/v1/workspaces': [workspace], '/v1/admin/users': [ada], '/v1/workspaces/w1/users': [member] };
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const ALL = ['workspaces.list', 'workspaces.create', 'workspaces.update', 'workspaces.delete', 'workspace_users.list', 'workspace_users.create', 'workspace_users.update', 'workspace_users.delete', 'users.list'];

async function open(sent: unknown[][], scopes = ALL) {
  const view = await render(<WorkspacesPage />, fakeIdentity({ get: async (path: string) => page(lists[path] ?? []), send: async (...args) => (sent.push(args), {} as never) }, scopes));
  cleanup = view.unmount;
  await settle();
  return view;
}

describe('the workspaces page', () => {
  test('a workspace without a name is refused before sending; with one it is created', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New workspace'));
    await click(button(view.container, 'Create workspace'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toBe('Not saved: name must NOT have fewer than 1 characters');
    await typeInto(byLabel(view.container, 'Name'), 'Lab');
    await typeInto(byLabel(view.container, 'Slug'), 'lab');
    await click(button(view.container, 'Create workspace'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/workspaces', { name: 'Lab', slug: 'lab' }]]);
  });

  test('members: a user is added with a role, a role is changed, a member is removed', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'Show the members of Research'));
    await settle();
    await typeInto(byLabel(view.container, 'User'), 'u1');
    await typeInto(byLabel(view.container, 'Role'), 'manager');
    await click(button(view.container, 'Add member'));
    await settle();
    await typeInto(view.container.querySelector<HTMLSelectElement>('select[aria-label="Role of bo@example.test"]')!, 'admin');
    await settle();
    await click(button(view.container, 'Remove bo@example.test'));
    await click(button(view.container, 'Confirm removing bo@example.test'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/workspaces/w1/users', { user_id: 'u1', role: 'manager' }],
      ['PUT', '/v1/workspaces/w1/users/u2', { role: 'admin' }],
      ['DELETE', '/v1/workspaces/w1/users/u2', undefined],
    ]);
  });

  test('without member scopes the Members button is absent; without update scopes Edit is disabled', async () => {
    const view = await open([], ['workspaces.list']);
    expect(button(view.container, 'Show the members of Research')).toBeUndefined();
    expect(button(view.container, 'Edit Research').disabled).toBe(true);
    expect(button(view.container, 'New workspace')).toBeUndefined();
  });
});
