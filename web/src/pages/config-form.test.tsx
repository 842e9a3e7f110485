import { afterEach, describe, expect, test, vi } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { ConfigsPage } from './configs';

vi.mock('../components/code-editor/view', () => {
  throw new Error('CodeMirror is tried in the browser tests; here the plain text box stands in');
});

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const providers = { object: 'list', has_more: false, next_cursor: null, data: [{ slug: 'openai-main' }, { slug: 'backup' }] };

async function newConfig() {
  const view = await render(<ConfigsPage rest="/new" />, fakeIdentity({ get: async () => providers as never }, ['configs.list', 'configs.create', 'virtual_keys.list']));
  cleanup = view.unmount;
  await settle();
  const json = () => JSON.parse(byLabel<HTMLTextAreaElement>(view.container, 'Config (JSON)').value) as unknown;
  return { view, json, field: <T extends HTMLElement>(label: string) => byLabel<T>(view.container, label) };
}

describe('the config form', () => {
  test('form edits rewrite the JSON: fallback statuses, a target provider and model, retries, cache and guardrails', async () => {
    const { view, json, field } = await newConfig();
    await typeInto(field('Fall back on statuses'), '429, 503');
    await typeInto(field('Target 1: provider'), '@openai-main');
    await typeInto(field('Target 2: model override'), 'gpt-4o-mini');
    await typeInto(field('Retry attempts'), '2');
    await typeInto(field('Cache'), 'simple');
    await typeInto(field('Cache max age (s)'), '60');
    await typeInto(field('Input guardrails'), 'no-pii, no-ssn');
    expect(json()).toEqual({
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      targets: [{ provider: '@openai-main' }, { provider: '@my-backup', override_params: { model: 'gpt-4o-mini' } }],
      retry: { attempts: 2 },
      cache: { mode: 'simple', max_age: 60 },
      input_guardrails: ['no-pii', 'no-ssn'],
    });
    // The saved providers are offered as @slug.
    expect([...view.container.querySelectorAll('datalist option')].map((o) => o.getAttribute('value'))).toEqual(['@openai-main', '@backup']);
  });

  test('load balancing shows weights; a nested target gets its own strategy', async () => {
    const { json, field, view } = await newConfig();
    await typeInto(field('Strategy'), 'loadbalance');
    await typeInto(field('Target 1: weight'), '0.7');
    await typeInto(field('Target 2: strategy'), 'fallback');
    await typeInto(field('Target 2.1: provider'), '@backup');
    expect(json()).toEqual({
      strategy: { mode: 'loadbalance' },
      targets: [{ provider: '@my-provider', weight: 0.7 }, { provider: '@my-backup', strategy: { mode: 'fallback' }, targets: [{ provider: '@backup' }, {}] }],
    });
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Remove target 2.2')!);
    expect((json() as { targets: Array<{ targets?: unknown[] }> }).targets[1]!.targets).toEqual([{ provider: '@backup' }]);
  });

  test('valid JSON refills the form, and fields the form does not show survive form edits', async () => {
    const { json, field } = await newConfig();
    const document = { strategy: { mode: 'fallback' }, targets: [{ provider: '@a', api_key: 'sk-x', forward_headers: ['x-user'], override_params: { model: 'm1', temperature: 0.2 } }, { virtual_key: 'legacy' }], strict_openai_compliance: false };
    await typeInto(field('Config (JSON)'), JSON.stringify(document));
    expect(field<HTMLInputElement>('Target 1: provider').value).toBe('@a');
    expect(field<HTMLInputElement>('Target 1: model override').value).toBe('m1');
    expect(field<HTMLInputElement>('Target 2: virtual key').value).toBe('legacy');
    await typeInto(field('Target 1: model override'), 'm2');
    await typeInto(field('Request timeout (ms)'), '30000');
    expect(json()).toEqual({ ...document, request_timeout: 30000, targets: [{ ...document.targets[0], override_params: { model: 'm2', temperature: 0.2 } }, { virtual_key: 'legacy' }] });
  });

  test('JSON that does not parse locks the form on the last valid config and says why', async () => {
    const { view, field } = await newConfig();
    await typeInto(field('Config (JSON)'), '{"provider": "@kept"}');
    await typeInto(field('Config (JSON)'), '{"provider": ');
    expect(view.container.querySelector('[data-testid="form-locked"]')?.textContent).toMatch(/Not valid JSON/);
    expect(field<HTMLInputElement>('Provider').value).toBe('@kept');
    expect(field<HTMLInputElement>('Provider').closest('fieldset')!.disabled).toBe(true);
    expect(view.container.querySelector('[data-testid="json-problem"]')?.textContent).toMatch(/^Not valid JSON/);
  });

  test('a schema error is named at the field before anything is sent', async () => {
    const sent: unknown[] = [];
    const view = await render(<ConfigsPage rest="/new" />, fakeIdentity({ get: async () => providers as never, send: async (...args) => (sent.push(args), {} as never) }, ['configs.list', 'configs.create']));
    cleanup = view.unmount;
    await settle();
    await typeInto(byLabel(view.container, 'Name'), 'x');
    await typeInto(byLabel(view.container, 'Target 1: provider'), 'Not A Name');
    await click([...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Create config')!);
    await settle();
    expect(view.container.querySelector('[data-testid="json-problem"]')?.textContent).toMatch(/^config\.targets\.0\.provider must match pattern/);
    expect(sent).toEqual([]);
  });
});
