import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { PromptsPage } from './prompts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const stamp = '2026-01-01T00:00:00Z';
const labels = [
  { id: 'l-prod', object: 'label', name: 'production', description: null, color_code: null, organisation_id: 'o1', workspace_id: null, is_universal: true, status: 'active', created_at: stamp, last_updated_at: stamp },
  { id: 'l-canary', object: 'label', name: 'canary', description: 'a few users', color_code: '#aa3300', organisation_id: 'o1', workspace_id: null, is_universal: false, status: 'active', created_at: stamp, last_updated_at: stamp },
];
const partial = { id: 'pp1', object: 'partial', slug: 'tone', name: 'Tone', collection_id: 'c1', workspace_id: 'w1', string: 'Be kind.', version: 1, prompt_partial_version_id: 'ppv1', default_version: 1, latest_version: 2, status: 'active', created_at: stamp, last_updated_at: stamp };
const partialLatest = { ...partial, string: 'Be kind and brief.', version: 2 };
const collections = [
  { id: 'c1', object: 'collection', name: 'Default', slug: 'default', workspace_id: 'w1', parent_collection_id: null, is_default: true, status: 'active', created_at: stamp, last_updated_at: stamp },
  { id: 'c2', object: 'collection', name: 'Support', slug: 'support', workspace_id: 'w1', parent_collection_id: null, is_default: false, status: 'active', created_at: stamp, last_updated_at: stamp },
];
const lists: Record<string, unknown[]> = { '/v1/labels': labels, '/v1/prompts/partials': [partial], '/v1/collections': collections };
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement | undefined;
const ALL = ['prompts.list', 'labels.list', 'labels.create', 'labels.delete', 'prompt_partials.list', 'prompt_partials.create', 'prompt_partials.update', 'prompt_partials.delete', 'collections.list', 'collections.create', 'collections.update', 'collections.delete'];

async function open(sent: unknown[][], scopes = ALL) {
  const get = async (path: string) => (path === '/v1/prompts/partials/pp1@latest' ? (partialLatest as never) : page(lists[path] ?? []));
  const view = await render(<PromptsPage />, fakeIdentity({ get, send: async (...args) => (sent.push(args), {} as never) }, scopes));
  cleanup = view.unmount;
  await settle();
  return view;
}

describe('labels', () => {
  test('a label is created with its colour, checked by the spec first; a built-in label cannot be deleted, another is after a confirmation', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    const table = view.container.querySelector('table[aria-label="Labels"]')!;
    expect(table.textContent).toContain('built in');
    expect(button(view.container, 'Delete label production')).toBeUndefined();
    await click(button(view.container, 'New label')!);
    await typeInto(byLabel(view.container, 'Label name'), 'latest');
    await click(button(view.container, 'Create label')!);
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: name must match pattern/);
    expect(sent).toEqual([]);
    await typeInto(byLabel(view.container, 'Label name'), 'beta');
    await typeInto(byLabel(view.container, 'Colour'), '#336699');
    await click(button(view.container, 'Create label')!);
    await settle();
    await click(button(view.container, 'Delete label canary')!);
    await click(button(view.container, 'Confirm deleting label canary')!);
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/labels', { name: 'beta', color_code: '#336699' }],
      ['DELETE', '/v1/labels/l-canary'],
    ]);
  });

  test('without labels.create and labels.delete there is no New label and Delete is disabled', async () => {
    const view = await open([], ['prompts.list', 'labels.list']);
    expect(button(view.container, 'New label')).toBeUndefined();
    expect(button(view.container, 'Delete label canary')!.disabled).toBe(true);
  });
});

describe('partials', () => {
  test('a partial is created; editing starts from its latest version and saves a new one; the latest is made default; delete asks first', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    expect(view.container.querySelector('table[aria-label="Partials"]')?.textContent).toContain('{{>tone}}');
    await click(button(view.container, 'New partial')!);
    await typeInto(byLabel(view.container, 'Partial name'), 'Sign-off');
    await typeInto(byLabel(view.container, 'Partial text'), 'Thanks, {{agent}}');
    await click(button(view.container, 'Create partial')!);
    await settle();
    await click(button(view.container, 'Edit partial Tone')!);
    await settle();
    expect(byLabel<HTMLTextAreaElement>(view.container, 'Partial text').value).toBe('Be kind and brief.');
    await typeInto(byLabel(view.container, 'Partial text'), 'Be kind, brief and exact.');
    await typeInto(byLabel(view.container, 'Partial version note'), 'exact');
    await click(button(view.container, 'Save partial version')!);
    await settle();
    await click(button(view.container, 'Make version 2 of Tone the default')!);
    await settle();
    await click(button(view.container, 'Delete partial Tone')!);
    await click(button(view.container, 'Confirm deleting partial Tone')!);
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/prompts/partials', { name: 'Sign-off', string: 'Thanks, {{agent}}' }],
      ['PUT', '/v1/prompts/partials/pp1', { string: 'Be kind, brief and exact.', version_description: 'exact' }],
      ['PUT', '/v1/prompts/partials/pp1/makeDefault', { version: 2 }],
      ['DELETE', '/v1/prompts/partials/pp1'],
    ]);
  });

  test('an empty partial text is refused before sending', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    await click(button(view.container, 'New partial')!);
    await typeInto(byLabel(view.container, 'Partial name'), 'Empty');
    await click(button(view.container, 'Create partial')!);
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toBe('Not saved: string must NOT have fewer than 1 characters');
    expect(sent).toEqual([]);
  });
});

describe('collections', () => {
  test('a collection is created inside another, one is renamed, the default one cannot be deleted', async () => {
    const sent: unknown[][] = [];
    const view = await open(sent);
    expect(button(view.container, 'Delete collection Default')).toBeUndefined();
    await click(button(view.container, 'New collection')!);
    await typeInto(byLabel(view.container, 'Collection name'), 'Refunds');
    await typeInto(byLabel(view.container, 'Inside collection'), 'support');
    await click(button(view.container, 'Create collection')!);
    await settle();
    await click(button(view.container, 'Rename collection Support')!);
    await typeInto(byLabel(view.container, 'Collection name'), 'Customer support');
    await click(button(view.container, 'Save collection')!);
    await settle();
    await click(button(view.container, 'Delete collection Support')!);
    await click(button(view.container, 'Confirm deleting collection Support')!);
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/collections', { name: 'Refunds', parent_collection_id: 'support' }],
      ['PUT', '/v1/collections/c2', { name: 'Customer support' }],
      ['DELETE', '/v1/collections/c2'],
    ]);
  });
});
