import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { IdentityPage } from './identity';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const settings = {
  object: 'sso_settings', organisation_id: 'o1', enabled: true, issuer: 'https://idp.example.com', client_id: 'gw-console', client_secret: 'sec…cret', email_domains: ['example.com'], default_role: 'member',
  redirect_uri: 'http://gw.test/v1/auth/sso/callback', sign_in_url: 'http://gw.test/v1/auth/sso/login?organisation=default', created_at: '2026-12-01T00:00:00Z', updated_at: '2026-12-01T00:00:00Z',
};
const ALL = ['organisation_settings.read', 'organisation_settings.update', 'workspace_users.list', 'workspace_users.create', 'workspace_users.delete', 'workspaces.list'];

async function open({ enabled, scopes = ALL, sent = [], asked = [] }: { enabled: boolean; scopes?: string[]; sent?: unknown[][]; asked?: string[] }) {
  const get = async (path: string, query?: Record<string, unknown>) => {
    asked.push(path);
    if (path === '/v1/auth/sso/status') expect(query).toEqual({ organisation: 'o1' });
    if (path === '/v1/auth/sso/status') return { enabled } as never;
    if (path === '/v1/admin/organisation/sso') return settings as never;
    if (path === '/v1/admin/scim/tokens') return page([{ id: 't1', object: 'scim_token', name: 'okta', masked_token: 'gwscim_…abcd', created_at: '2026-12-01T00:00:00Z' }]);
    if (path === '/v1/scim/workspaces') return { mappings: [{ id: 'm1', workspace_id: 'ws-1', scim_group: 'engineers', scim_group_id: 'g1', role: 'member', created_at: '2026-12-01T00:00:00Z' }], total_count: 1 } as never;
    if (path === '/v1/scim/groups') return { groups: [{ id: 'g1', display_name: 'engineers', external_id: 'okta-1', members_count: 3, created_at: '' }], total_count: 1 } as never;
    if (path === '/v1/workspaces') return page([{ id: 'ws-1', name: 'Research' }]);
    return page([]);
  };
  const send = async (...args: unknown[]) => (sent.push(args), { id: 't2', name: 'entra', masked_token: 'gwscim_…wxyz', token: 'gwscim_the-secret', scim_base_url: 'http://gw.test/v1/scim/v2', created_at: '' } as never);
  const view = await render(<IdentityPage />, fakeIdentity({ get: get as never, send: send as never }, scopes));
  cleanup = view.unmount;
  for (let i = 0; i < 4; i++) await settle();
  return view;
}

describe('the SSO and SCIM page', () => {
  test('with SSO on, the settings show the secret masked only and the form keeps it when its box is left empty', async () => {
    const sent: unknown[][] = [];
    const view = await open({ enabled: true, sent });
    expect(view.container.textContent).toContain('http://gw.test/v1/auth/sso/callback');
    expect(view.container.textContent).toContain('sec…cret');
    const secret = byLabel<HTMLInputElement>(view.container, 'Client secret');
    expect(secret.type).toBe('password');
    expect(secret.value).toBe('');
    expect(byLabel<HTMLInputElement>(view.container, 'Issuer').value).toBe('https://idp.example.com');
    await typeInto(byLabel(view.container, 'Email domains'), 'example.com, corp.example');
    await click(button(view.container, 'Save SSO settings'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/admin/organisation/sso', { enabled: true, issuer: 'https://idp.example.com', client_id: 'gw-console', default_role: 'member', email_domains: ['example.com', 'corp.example'] }]]);
  });

  test('with SSO off the settings are not asked for (no 404 on a first visit); a bad domain is named and not sent', async () => {
    const sent: unknown[][] = [];
    const asked: string[] = [];
    const view = await open({ enabled: false, sent, asked });
    expect(asked).not.toContain('/v1/admin/organisation/sso');
    expect(view.container.textContent).toContain('SSO sign-in is off.');
    await typeInto(byLabel(view.container, 'Issuer'), 'https://idp.example.com');
    await typeInto(byLabel(view.container, 'Client ID'), 'gw');
    await typeInto(byLabel(view.container, 'Client secret'), 'typed-secret');
    await typeInto(byLabel(view.container, 'Email domains'), 'not a domain');
    await click(button(view.container, 'Save SSO settings'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: email_domains/);
    expect(sent).toEqual([]);
    await typeInto(byLabel(view.container, 'Email domains'), '');
    await click(button(view.container, 'Save SSO settings'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/admin/organisation/sso', { enabled: true, issuer: 'https://idp.example.com', client_id: 'gw', default_role: 'member', email_domains: [], client_secret: 'typed-secret' }]]);
  });

  test('a SCIM token is created and its secret shown once with the base URL; revoking asks once more', async () => {
    const sent: unknown[][] = [];
    const view = await open({ enabled: false, sent });
    expect(view.container.querySelector('table[aria-label="SCIM tokens"]')?.textContent).toContain('gwscim_…abcd');
    await click(button(view.container, 'New SCIM token'));
    await typeInto(byLabel(view.container, 'Token name'), 'entra');
    await click(button(view.container, 'Create SCIM token'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/admin/scim/tokens', { name: 'entra' }]]);
    expect(view.container.querySelector('[data-testid="new-secret"]')?.textContent).toBe('gwscim_the-secret');
    expect(view.container.textContent).toContain('http://gw.test/v1/scim/v2');
    await click(button(view.container, 'Revoke okta'));
    await click(button(view.container, 'Confirm revoking okta'));
    await settle();
    expect(sent.at(-1)).toEqual(['DELETE', '/v1/admin/scim/tokens/t1']);
  });

  test('a SCIM group is mapped to a workspace by name; mappings and groups are listed', async () => {
    const sent: unknown[][] = [];
    const view = await open({ enabled: false, sent });
    expect(view.container.querySelector('table[aria-label="SCIM mappings"]')?.textContent).toContain('Research');
    expect(view.container.querySelector('table[aria-label="SCIM groups"]')?.textContent).toContain('okta-1');
    await click(button(view.container, 'Map a group'));
    await typeInto(byLabel(view.container, 'Group name'), 'admins');
    await typeInto(byLabel(view.container, 'Workspace'), 'ws-1');
    await typeInto(byLabel(view.container, 'Role'), 'admin');
    await click(button(view.container, 'Save mapping'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/scim/workspaces', { scim_group_name: 'admins', workspace_id: 'ws-1', role: 'admin' }]]);
  });

  test('read-only: no SSO form, SCIM buttons disabled naming the scope', async () => {
    const view = await open({ enabled: true, scopes: ['organisation_settings.read'] });
    expect(view.container.querySelector('input[type="password"]')).toBeNull();
    expect(view.container.textContent).toContain('Changing them needs organisation_settings.update.');
    expect(button(view.container, 'New SCIM token').title).toBe('Needs organisation_settings.update');
    expect(view.container.querySelector('table[aria-label="SCIM mappings"]')).toBeNull();
  });
});
