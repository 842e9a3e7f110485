import { afterEach, describe, expect, test, vi } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { ConfigsPage } from './configs';

vi.mock('../components/code-editor/view', () => {
  throw new Error('CodeMirror is tried in the browser tests; here the plain text box stands in');
});

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('the config editor', () => {
  test('an invalid config shows the schema message, marks the editor invalid, and sends nothing', async () => {
    const sent: unknown[] = [];
    const identity = fakeIdentity({ send: async (...args) => (sent.push(args), undefined as never) }, ['configs.list', 'configs.create']);
    const view = await render(<ConfigsPage rest="/new" />, identity);
    cleanup = view.unmount;
    await settle();
    await typeInto(byLabel(view.container, 'Name'), 'Broken');
    const editor = byLabel<HTMLTextAreaElement>(view.container, 'Config (JSON)');
    await typeInto(editor, JSON.stringify({ strategy: { mode: 'sometimes' } }));
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Create config')!);
    await settle();
    expect(view.container.querySelector('[data-testid="json-problem"]')?.textContent).toMatch(/^config\.strategy\.mode must be one of/);
    expect(editor.getAttribute('aria-invalid')).toBe('true');
    expect(sent).toEqual([]);
  });

  test('a valid config is sent to POST /v1/configs as parsed JSON', async () => {
    const sent: unknown[][] = [];
    const identity = fakeIdentity({ send: async (...args) => (sent.push(args), { id: 'c1' } as never) }, ['configs.list', 'configs.create']);
    const view = await render(<ConfigsPage rest="/new" />, identity);
    cleanup = view.unmount;
    await settle();
    await typeInto(byLabel(view.container, 'Name'), 'Good');
    await typeInto(byLabel(view.container, 'Config (JSON)'), '{"provider": "@a"}');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Create config')!);
    await settle();
    expect(sent).toEqual([['POST', '/v1/configs', { name: 'Good', config: { provider: '@a' } }]]);
  });

  test('without configs.create the save button is disabled', async () => {
    const view = await render(<ConfigsPage rest="/new" />, fakeIdentity({}, ['configs.list']));
    cleanup = view.unmount;
    await settle();
    expect(([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Create config') as HTMLButtonElement).disabled).toBe(true);
  });

  test('an existing config shows its version history, and a version loads into the editor', async () => {
    const config = { id: 'c1', name: 'Main', slug: 'main', version: 2, config: { provider: '@new' } };
    const versions = { object: 'list', has_more: false, next_cursor: null, data: [
      { id: 'v2', version: 2, config: { provider: '@new' }, created_at: '2026-01-02T00:00:00Z' },
      { id: 'v1', version: 1, config: { provider: '@old' }, created_at: '2026-01-01T00:00:00Z' },
    ] };
    const get = async (path: string) => (path.endsWith('/versions') ? versions : config) as never;
    const view = await render(<ConfigsPage rest="/c1" />, fakeIdentity({ get }, ['configs.list', 'configs.read', 'configs.update']));
    cleanup = view.unmount;
    await settle();
    const items = [...view.container.querySelectorAll('.versions summary')].map((s) => s.textContent);
    expect(items.map((t) => t?.split(' · ')[0])).toEqual(['Version 2', 'Version 1']);
    const editor = byLabel<HTMLTextAreaElement>(view.container, 'Config (JSON)');
    expect(JSON.parse(editor.value)).toEqual({ provider: '@new' });
    await click([...view.container.querySelectorAll('.versions li')][1]!.querySelector('button')!);
    expect(JSON.parse(editor.value)).toEqual({ provider: '@old' });
  });
});
