import { afterEach, describe, expect, test, vi } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { GuardrailsPage } from './guardrails';

vi.mock('../components/code-editor/view', () => {
  throw new Error('CodeMirror is tried in the browser tests; here the plain text box stands in');
});

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const empty = { object: 'list', data: [], has_more: false, next_cursor: null } as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name) as HTMLButtonElement;

async function newGuardrail(sent: unknown[][]) {
  const view = await render(<GuardrailsPage />, fakeIdentity({ get: async () => empty, send: async (...args) => (sent.push(args), {} as never) }, ['guardrails.list', 'guardrails.create']));
  cleanup = view.unmount;
  await settle();
  await click(button(view.container, 'New guardrail'));
  await typeInto(byLabel(view.container, 'Name'), 'No SSNs');
  return view;
}

/** The form's own error (the JSON view has its alert too). */
const alertText = (container: HTMLElement) => [...container.querySelectorAll('[role="alert"]')].map((a) => a.textContent).find((t) => t?.startsWith('Not saved'));

describe('the guardrail form', () => {
  test('a check without its id is refused before sending, naming the check', async () => {
    const sent: unknown[][] = [];
    const view = await newGuardrail(sent);
    await typeInto(byLabel(view.container, 'Checks (JSON)'), '[{"parameters": {}}]');
    await click(button(view.container, 'Create guardrail'));
    await settle();
    expect(alertText(view.container)).toBe('Not saved: checks.0 needs "id"');
    expect(sent).toEqual([]);
  });

  test('checks that are not JSON say so', async () => {
    const sent: unknown[][] = [];
    const view = await newGuardrail(sent);
    await typeInto(byLabel(view.container, 'Checks (JSON)'), '[{"id": ');
    await click(button(view.container, 'Create guardrail'));
    await settle();
    expect(alertText(view.container)).toMatch(/^Not saved: checks: Not valid JSON/);
    expect(sent).toEqual([]);
  });

  test('a valid guardrail is sent with its checks and actions', async () => {
    const sent: unknown[][] = [];
    const view = await newGuardrail(sent);
    await typeInto(byLabel(view.container, 'Checks (JSON)'), '[{"id": "default.contains", "parameters": {"words": ["x"], "operator": "any"}}]');
    const deny = [...view.container.querySelectorAll('label')].find((l) => l.textContent === 'Deny the request (446); otherwise only monitor')!;
    await click(deny.querySelector('input')!);
    await click(button(view.container, 'Create guardrail'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/guardrails', { name: 'No SSNs', checks: [{ id: 'default.contains', parameters: { words: ['x'], operator: 'any' } }], actions: { deny: true, hold_stream: false }, failOnError: false, timeout_ms: 10000 }],
    ]);
  });

  test('checks as a form: an id from the built-in list with its parameters as fields, in step with the JSON; other parameters kept', async () => {
    const sent: unknown[][] = [];
    const view = await newGuardrail(sent);
    const json = () => JSON.parse(byLabel<HTMLTextAreaElement>(view.container, 'Checks (JSON)').value) as unknown;
    expect(byLabel<HTMLInputElement>(view.container, 'Check 1 rule').value).toBe('\\d{3}-\\d{2}-\\d{4}');
    await click(button(view.container, 'Add a check'));
    await typeInto(byLabel(view.container, 'Check 2 id'), 'default.pii');
    await typeInto(byLabel(view.container, 'Check 2 categories'), 'email, card');
    await click([...view.container.querySelectorAll('label')].find((l) => l.textContent === 'Check 2 redact')!.querySelector('input')!);
    expect(json()).toEqual([{ id: 'default.regexMatch', parameters: { rule: '\\d{3}-\\d{2}-\\d{4}' } }, { id: 'default.pii', parameters: { words: [], categories: ['email', 'card'], redact: true } }]);

    await typeInto(byLabel(view.container, 'Checks (JSON)'), JSON.stringify([{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.com/x', headers: { authorization: 'secret' } }, is_enabled: false }]));
    expect(byLabel<HTMLInputElement>(view.container, 'Check 1 webhookURL').value).toBe('https://hooks.example.com/x');
    expect(view.container.textContent).toContain('Also set in the JSON: headers');
    await typeInto(byLabel(view.container, 'Check 1 timeout'), '2000');
    expect(json()).toEqual([{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example.com/x', headers: { authorization: 'secret' }, timeout: 2000 }, is_enabled: false }]);
  });
});
