import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { UsersPage } from './users';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const ada = { id: 'u1', object: 'user', email: 'ada@example.test', first_name: 'Ada', last_name: 'L', role: 'member', status: 'active', workspaces: [], created_at: '', updated_at: '' };
const pending = { id: 'i1', object: 'invite', email: 'bo@example.test', role: 'member', workspaces: [], status: 'pending', expires_at: '2026-12-10T00:00:00Z', accepted_at: null, created_by: null, created_at: '', updated_at: '' };
const ALL = ['users.list', 'users.create', 'users.update', 'users.delete', 'workspaces.list'];

async function open(scopes: string[], sent: unknown[][] = []) {
  const get = async (path: string) => {
    if (path === '/v1/admin/users') return page([ada]);
    if (path === '/v1/admin/users/invites') return page([pending]);
    if (path === '/v1/workspaces') return page([{ id: 'ws-1', name: 'Research' }]);
    return page([]);
  };
  const send = async (...args: unknown[]) => (sent.push(args), { ...pending, token: 'gwinv_secret-token' } as never);
  const view = await render(<UsersPage />, fakeIdentity({ get: get as never, send: send as never }, scopes));
  cleanup = view.unmount;
  await settle();
  await settle();
  return view;
}

describe('the users page', () => {
  test("a user's role is changed with PUT; removing asks once more", async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    expect(view.container.querySelector('table[aria-label="Users"]')?.textContent).toContain('Ada L');
    await typeInto(view.container.querySelector<HTMLSelectElement>('select[aria-label="Role of ada@example.test"]')!, 'admin');
    await settle();
    await click(button(view.container, 'Remove ada@example.test'));
    expect(sent).toEqual([['PUT', '/v1/admin/users/u1', { role: 'admin' }]]);
    await click(button(view.container, 'Confirm removing ada@example.test'));
    await settle();
    expect(sent.at(-1)).toEqual(['DELETE', '/v1/admin/users/u1', undefined]);
  });

  test('an invitation with a workspace is sent and its token shown once; an expiry the spec refuses is named and not sent', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'Invite someone'));
    await settle();
    await typeInto(byLabel(view.container, 'Email'), 'bo@example.test');
    await typeInto(byLabel(view.container, 'Expires in days'), '40');
    await click(button(view.container, 'Send invitation'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: expires_in_days/);
    expect(sent).toEqual([]);

    await typeInto(byLabel(view.container, 'Expires in days'), '7');
    await typeInto(byLabel(view.container, 'Organisation role'), 'admin');
    const research = [...view.container.querySelectorAll('label.check')].find((l) => l.textContent === 'Research')!.querySelector('input')!;
    await click(research);
    await typeInto(byLabel(view.container, 'Workspace role'), 'manager');
    await click(button(view.container, 'Send invitation'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/admin/users/invites', { email: 'bo@example.test', role: 'admin', expires_in_days: 7, workspaces: [{ workspace_id: 'ws-1', role: 'manager' }] }]]);
    expect(view.container.querySelector('[data-testid="new-secret"]')?.textContent).toBe('gwinv_secret-token');
  });

  test('an invitation names its workspaces by name; without workspaces.list by id', async () => {
    const invited = { ...pending, workspaces: [{ workspace_id: 'ws-1', role: 'manager' }] };
    const listing = (scopes: string[]) =>
      render(
        <UsersPage />,
        fakeIdentity(
          {
            get: (async (path: string) =>
              path === '/v1/admin/users/invites' ? page([invited]) : path === '/v1/workspaces' ? page([{ id: 'ws-1', name: 'Research' }]) : page([])) as never,
          },
          scopes,
        ),
      );
    let view = await listing(ALL);
    cleanup = view.unmount;
    await settle();
    await settle();
    expect(view.container.querySelector('table[aria-label="Invitations"] tbody tr')?.textContent).toContain('Research (manager)');
    view.unmount();
    view = await listing(['users.list']);
    cleanup = view.unmount;
    await settle();
    await settle();
    expect(view.container.querySelector('table[aria-label="Invitations"] tbody tr')?.textContent).toContain('ws-1 (manager)');
  });

  test('a pending invitation is resent or withdrawn', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    const row = view.container.querySelector('table[aria-label="Invitations"] tbody tr')!;
    expect(row.textContent).toContain('pending');
    await click(button(view.container, 'Resend the invitation of bo@example.test'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/admin/users/invites/i1/resend', {}]]);
    await click(button(view.container, 'Withdraw the invitation of bo@example.test'));
    await click(button(view.container, 'Confirm withdrawing the invitation of bo@example.test'));
    await settle();
    expect(sent.at(-1)).toEqual(['DELETE', '/v1/admin/users/invites/i1']);
  });

  test('without the write scopes the controls are disabled and name the scope', async () => {
    const view = await open(['users.list']);
    const role = view.container.querySelector<HTMLSelectElement>('select[aria-label="Role of ada@example.test"]')!;
    expect(role.disabled).toBe(true);
    expect(role.title).toBe('Needs users.update');
    expect(button(view.container, 'Invite someone').title).toBe('Needs users.create');
    expect(button(view.container, 'Remove ada@example.test').title).toBe('Needs users.delete');
  });
});
