import { afterEach, describe, expect, test } from 'vitest';
import type { Provider } from '../api/types';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { ProvidersPage } from './providers';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const stored: Provider = {
  id: 'p1', object: 'provider', name: 'Main', slug: 'main', note: null, organisation_id: 'o1', workspace_id: 'w1', integration_id: null,
  ai_provider_id: 'openai', auth_type: 'apiKey', masked_key: 'sk-f********0000', status: 'active', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
};
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;

async function open(scopes: string[], sent: unknown[][] = []) {
  const identity = fakeIdentity({ get: async (path: string) => page(path === '/v1/providers' ? [stored] : []), send: async (...args) => (sent.push(args), {} as never) }, scopes);
  const view = await render(<ProvidersPage />, identity);
  cleanup = view.unmount;
  await settle();
  return view;
}

const ALL = ['virtual_keys.list', 'virtual_keys.create', 'virtual_keys.update', 'virtual_keys.delete'];

describe('the provider forms', () => {
  test('a stored key shows only masked; the key box starts empty, is a password box, and an empty one is not sent', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    expect(view.container.querySelector('table')?.textContent).toContain('sk-f********0000');
    await click(button(view.container, 'Edit Main'));
    const key = byLabel<HTMLInputElement>(view.container, 'Provider key');
    expect(key.type).toBe('password');
    expect(key.value).toBe('');
    expect(view.container.textContent).toContain('Stored as sk-f********0000; leave empty to keep it');
    await typeInto(byLabel(view.container, 'Note'), 'rotated soon');
    await click(button(view.container, 'Save provider'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/providers/p1', { name: 'Main', ai_provider_id: 'openai', note: 'rotated soon' }]]);
  });

  test('a new key typed in is sent once, and the form closes', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'New provider'));
    await typeInto(byLabel(view.container, 'Name'), 'Backup');
    await typeInto(byLabel(view.container, 'Provider key'), 'sk-typed-secret');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/providers', { name: 'Backup', ai_provider_id: 'openai', key: 'sk-typed-secret' }]]);
    expect(view.container.querySelector('form')).toBeNull();
    expect(view.container.textContent).not.toContain('sk-typed-secret');
  });

  test("a body the spec refuses is not sent: the field and the rule are shown", async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'New provider'));
    await typeInto(byLabel(view.container, 'Name'), 'Bad');
    await typeInto(byLabel(view.container, 'AI provider'), 'Open AI');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: ai_provider_id must match pattern/);
    expect(sent).toEqual([]);
  });

  test('without write scopes there is no New button and Edit and Delete are disabled', async () => {
    const view = await open(['virtual_keys.list']);
    expect(button(view.container, 'New provider')).toBeUndefined();
    expect(button(view.container, 'Edit Main').disabled).toBe(true);
    expect(button(view.container, 'Delete Main').disabled).toBe(true);
  });

  test('delete asks once more, then calls DELETE', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'Delete Main'));
    expect(sent).toEqual([]);
    await click(button(view.container, 'Confirm deleting Main'));
    await settle();
    expect(sent).toEqual([['DELETE', '/v1/providers/p1']]);
  });
});

describe('the integration form', () => {
  test('an integration limited to listed workspaces sends them, and its key like a provider key', async () => {
    const sent: unknown[][] = [];
    const view = await open([...ALL, 'integrations.list', 'integrations.create'], sent);
    await click(button(view.container, 'New integration'));
    await typeInto(byLabel(view.container, 'Name'), 'Shared OpenAI');
    const key = byLabel<HTMLInputElement>(view.container, 'Provider key');
    expect(key.type).toBe('password');
    await typeInto(key, 'sk-org-secret');
    const all = [...view.container.querySelectorAll('label')].find((l) => l.textContent === 'All workspaces')!.querySelector('input')!;
    await click(all);
    await typeInto(byLabel(view.container, 'Workspace ids or slugs'), 'research, lab');
    await click(button(view.container, 'Create integration'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/integrations', { name: 'Shared OpenAI', ai_provider_id: 'openai', key: 'sk-org-secret', workspace_access: { all_workspaces: false, workspace_ids: ['research', 'lab'] } }],
    ]);
  });
});
