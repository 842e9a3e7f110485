import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { ConfigsPage } from './configs';

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
    expect(view.container.querySelector('[data-testid="config-problem"]')?.textContent).toMatch(/^config\.strategy\.mode must be one of/);
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
});
