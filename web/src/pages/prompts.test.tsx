import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { PromptsPage } from './prompts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const summary = { id: 'pr1', object: 'prompt', name: 'greeting', slug: 'greeting', model: 'gpt-4o-mini', latest_version: 2, default_version: 1, last_updated_at: '2026-01-01T00:00:00Z' };
// The latest version, as GET /v1/prompts/{id}@latest answers it: the template a new version starts from.
const latest = { ...summary, string: [{ role: 'user', content: 'Hi {{name}}' }], virtual_key: '@main', prompt_version: 2 };
const versions = [
  { id: 'v2', object: 'prompt_version', prompt_id: 'pr1', prompt_version: 2, label_id: null, is_default: false, status: 'active', created_at: '2026-01-02T00:00:00Z' },
  { id: 'v1', object: 'prompt_version', prompt_id: 'pr1', prompt_version: 1, label_id: 'l-prod', is_default: true, status: 'active', created_at: '2026-01-01T00:00:00Z' },
];
const labels = [
  { id: 'l-prod', object: 'label', name: 'production' },
  { id: 'l-stage', object: 'label', name: 'staging' },
];
const lists: Record<string, unknown[]> = { '/v1/prompts': [summary], '/v1/prompts/pr1/versions': versions, '/v1/labels': labels };
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const ALL = ['prompts.list', 'prompts.read', 'prompts.create', 'prompts.update', 'prompts.delete', 'labels.list', 'completions.write'];

async function openPrompt(sent: unknown[][], scopes = ALL) {
  const send = async (...args: unknown[]) => (sent.push(args), (args[1] as string).endsWith('/render') ? { success: true, data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi Ada' }] } } : { prompt_version: 3, new_version: true }) as never;
  const view = await render(<PromptsPage />, fakeIdentity({ get: async (path: string) => (path === '/v1/prompts/pr1@latest' ? (latest as never) : page(lists[path] ?? [])), send }, scopes));
  cleanup = view.unmount;
  await settle();
  await click(button(view.container, 'Open greeting'));
  await settle();
  return view;
}

describe('the prompts page', () => {
  test('a new version sends the template as a patch and says it is not yet the default', async () => {
    const sent: unknown[][] = [];
    const view = await openPrompt(sent);
    await click(button(view.container, 'New version'));
    expect(JSON.parse(byLabel<HTMLTextAreaElement>(view.container, 'Template').value)).toEqual(latest.string);
    await typeInto(byLabel(view.container, 'Template'), '[{"role": "user", "content": "Hello {{name}}!"}]');
    await click(button(view.container, 'Save new version'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/prompts/pr1', { string: [{ role: 'user', content: 'Hello {{name}}!' }], model: 'gpt-4o-mini', virtual_key: '@main', patch: true }]]);
    expect(view.container.querySelector('[role="status"]')?.textContent).toMatch(/^Saved as version 3/);
  });

  test('a template message with an unknown role is refused before sending', async () => {
    const sent: unknown[][] = [];
    const view = await openPrompt(sent);
    await click(button(view.container, 'New version'));
    await typeInto(byLabel(view.container, 'Template'), '[{"role": "narrator", "content": "x"}]');
    await click(button(view.container, 'Save new version'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: string.0.role must be one of "system", "developer", "user"/);
    expect(sent).toEqual([]);
  });

  test('labels and the default version are set from the versions table', async () => {
    const sent: unknown[][] = [];
    const view = await openPrompt(sent);
    await typeInto(view.container.querySelector<HTMLSelectElement>('select[aria-label="Label of version 2"]')!, 'l-stage');
    await settle();
    await click(button(view.container, 'Make version 2 the default'));
    await settle();
    expect(sent).toEqual([
      ['PUT', '/v1/prompts/pr1/versions/2', { label_id: 'l-stage' }],
      ['PUT', '/v1/prompts/pr1/makeDefault', { version: 2 }],
    ]);
  });

  test('the render preview sends the variables to the chosen version and shows the rendered request', async () => {
    const sent: unknown[][] = [];
    const view = await openPrompt(sent);
    await typeInto(byLabel(view.container, 'Version to render'), '2');
    await typeInto(byLabel(view.container, 'Variables (JSON)'), '{"name": "Ada"}');
    await click(button(view.container, 'Render'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/prompts/pr1@2/render', { variables: { name: 'Ada' } }]]);
    expect(view.container.querySelector('[aria-label="Rendered request"]')?.textContent).toContain('"content": "Hi Ada"');
  });

  test('without prompts.update or completions.write: no New version, Make default disabled, no render', async () => {
    const view = await openPrompt([], ['prompts.list', 'prompts.read', 'labels.list']);
    expect(button(view.container, 'New version')).toBeUndefined();
    expect(button(view.container, 'Make version 2 the default').disabled).toBe(true);
    expect(view.container.querySelector('select[aria-label="Label of version 2"]')?.hasAttribute('disabled')).toBe(true);
    expect(button(view.container, 'Render')).toBeUndefined();
  });
});
