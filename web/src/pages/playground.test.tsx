import { afterEach, describe, expect, test } from 'vitest';
import { ApiFailure } from '../api/client';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { PlaygroundPage } from './playground';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const stamp = '2026-01-01T00:00:00Z';
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const provider = { id: 'p1', slug: 'open', name: 'Open', ai_provider_id: 'openai' };
const prompt = { id: 'pr1', object: 'prompt', slug: 'greet', name: 'Greeting', collection_id: 'c1', workspace_id: 'w1', default_version: 1, latest_version: 1, status: 'active', created_at: stamp, last_updated_at: stamp };
const version = { id: 'v1', object: 'prompt_version', prompt_id: 'pr1', prompt_version: 1, prompt_template: { string: [{ role: 'user', content: 'Hi {{name}}{{#items}} {{label}}{{/items}}{{>sign-off}}' }] }, label_id: null, is_default: true, status: 'active', created_at: stamp };
const models = [{ id: '@open/gpt-4o', object: 'model', created: 0, owned_by: 'openai' }];
const SCOPES = ['completions.write', 'virtual_keys.list', 'configs.list', 'prompts.list', 'prompts.read', 'logs.list'];

type Sent = { path: string; headers: Record<string, string>; body: Record<string, unknown> };

/** An SSE answer of chat chunks, then [DONE]. */
function sse(deltas: Array<Record<string, unknown>>, finish = 'stop'): Response {
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  return new Response([...deltas.map((d) => chunk(d, null)), chunk({}, finish), 'data: [DONE]\n\n'].join(''), { headers: { 'content-type': 'text/event-stream' } });
}

async function open(answer: (sent: Sent) => Response, send: (method: string, path: string, body: unknown) => Promise<never> = async () => undefined as never) {
  const calls: Sent[] = [];
  const traces: string[] = [];
  const get = async (path: string, query?: Record<string, unknown>) => {
    if (path === '/v1/providers') return page([provider]);
    if (path === '/v1/prompts') return page([prompt]);
    if (path === '/v1/models') return page(models);
    if (path === '/v1/prompts/pr1/versions') return page([version]);
    if (path === '/v1/logs') return page([{ id: `log-${String(query?.trace_id)}`, status: 200, provider: 'openai', model: `model of ${traces.indexOf(String(query?.trace_id))}`, total_tokens: 18, cost: 0.001, latency_ms: 120 }]);
    return page([]);
  };
  const fetch = async (path: string, init?: RequestInit) => {
    const headers = init?.headers as Record<string, string>;
    traces.push(headers['x-gw-trace-id']!);
    const sent = { path, headers, body: JSON.parse(String(init?.body)) as Record<string, unknown> };
    calls.push(sent);
    return answer(sent);
  };
  const view = await render(<PlaygroundPage />, fakeIdentity({ get: get as never, fetch, send: send as never }, SCOPES));
  cleanup = view.unmount;
  await settle();
  return { view, calls };
}

const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
/** A checkbox inside its label (the console's .check style). */
const checkbox = (container: HTMLElement, text: string) => [...container.querySelectorAll('label')].find((l) => l.textContent?.trim() === text)!.querySelector('input')!;
const region = (container: HTMLElement, name: string) => container.querySelector(`section[aria-label="${name}"]`) as HTMLElement;
const submit = async (container: HTMLElement) => {
  await click(button(container, 'Send (streamed)') ?? button(container, 'Send'));
  for (let i = 0; i < 6; i++) await settle();
};

describe('the playground', () => {
  test('two models side by side: the same conversation (system prompt first) goes to both, each streams its own answer and shows its own log row', async () => {
    const { view, calls } = await open((sent) => sse([{ role: 'assistant', content: '' }, { content: `${String(sent.body.model)} ` }, { content: 'answers' }]));
    const c = view.container;
    expect([...c.querySelectorAll('datalist option')].map((o) => (o as HTMLOptionElement).value)).toEqual(['@open/gpt-4o']);
    await typeInto(byLabel(c, 'System prompt'), 'Be brief.');
    await click(checkbox(c, 'Compare two models side by side'));
    await typeInto(byLabel(region(c, 'Model A'), 'Model'), '@open/gpt-4o');
    await typeInto(byLabel(region(c, 'Model B'), 'Provider or config'), 'provider:open');
    await typeInto(byLabel(region(c, 'Model B'), 'Model'), 'gpt-4o-mini');
    await typeInto(byLabel(c, 'Message'), 'Hi');
    await submit(c);
    expect(calls.map((s) => [s.path, s.headers['x-gw-provider'], s.body.model, s.body.stream])).toEqual([
      ['/v1/chat/completions', undefined, '@open/gpt-4o', true],
      ['/v1/chat/completions', '@open', 'gpt-4o-mini', true],
    ]);
    expect(calls[0]!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(region(c, 'Model A').textContent).toContain('@open/gpt-4o answers');
    expect(region(c, 'Model B').textContent).toContain('gpt-4o-mini answers');
    expect(region(c, 'Model A').querySelector('[data-testid="playground-log"]')?.textContent).toMatch(/^200 · openai · model of 0 · 18 tokens/);
    expect(region(c, 'Model B').querySelector('[data-testid="playground-log"]')?.textContent).toMatch(/^200 · openai · model of 1 · 18 tokens/);

    // The next turn sends each column's own answer back.
    await typeInto(byLabel(c, 'Message'), 'More');
    await submit(c);
    expect(calls[3]!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'gpt-4o-mini answers' },
      { role: 'user', content: 'More' },
    ]);
  });

  test('a streamed tool call is joined from its pieces, shown, and answered with a tool message on the next send', async () => {
    const { view, calls } = await open((sent) =>
      (sent.body.messages as Array<{ role: string }>).at(-1)!.role === 'tool'
        ? sse([{ content: 'It is sunny' }])
        : sse([{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }], 'tool_calls'),
    );
    const c = view.container;
    await typeInto(byLabel(c, 'Model'), '@open/gpt-4o');
    await typeInto(byLabel(c, 'Tools (JSON)'), '[{"type": "function", "function": {"name": "get_weather"}}]');
    await typeInto(byLabel(c, 'Tool choice'), 'required');
    await typeInto(byLabel(c, 'Message'), 'Weather?');
    await submit(c);
    expect(calls[0]!.body.tools).toEqual([{ type: 'function', function: { name: 'get_weather' } }]);
    expect(calls[0]!.body.tool_choice).toBe('required');
    expect(c.textContent).toContain('get_weather({"city":"Oslo"})');
    await typeInto(byLabel(c, 'Result of get_weather (call_1)'), '12 °C, sunny');
    await submit(c);
    expect((calls[1]!.body.messages as unknown[]).slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '12 °C, sunny' },
    ]);
    expect(c.textContent).toContain('It is sunny');
  });

  test('parameters the spec refuses are named and nothing is sent; the others are sent as typed, not streamed when asked', async () => {
    const { view, calls } = await open(() => new Response(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '{"ok": true}', refusal: null }, finish_reason: 'stop', logprobs: null }] })));
    const c = view.container;
    await typeInto(byLabel(c, 'Model'), '@open/gpt-4o');
    await typeInto(byLabel(c, 'Temperature'), '3');
    await submit(c);
    expect(c.querySelector('[role="alert"]')?.textContent).toMatch(/^Not sent: temperature must be <= 2/);
    expect(calls).toEqual([]);
    await typeInto(byLabel(c, 'Temperature'), '0.5');
    await typeInto(byLabel(c, 'Top p'), '0.9');
    await typeInto(byLabel(c, 'Max tokens'), '64');
    await typeInto(byLabel(c, 'Sent as'), 'max_tokens');
    await typeInto(byLabel(c, 'Stop sequences'), 'END\nSTOP');
    await typeInto(byLabel(c, 'Seed'), '42');
    await typeInto(byLabel(c, 'Response format'), 'json_object');
    await click(checkbox(c, 'Stream the answer'));
    await submit(c);
    const { model, messages, ...params } = calls[0]!.body;
    expect([model, messages]).toEqual(['@open/gpt-4o', [{ role: 'user', content: 'Hello!' }]]);
    expect(params).toEqual({ temperature: 0.5, top_p: 0.9, max_tokens: 64, stop: ['END', 'STOP'], seed: 42, response_format: { type: 'json_object' }, stream: false });
    expect(c.textContent).toContain('{"ok": true}');
  });

  test("a library prompt: its variables (the template's, and those gw's render names) become fields; the first turn renders it and sends only the variables", async () => {
    const rendered: unknown[] = [];
    const send = async (_method: string, path: string, body: unknown) => {
      const variables = (body as { variables: Record<string, unknown> }).variables;
      rendered.push([path, variables]);
      for (const name of ['name', 'team.city']) {
        const [head, tail] = name.split('.');
        const has = tail ? (variables[head!] as Record<string, unknown> | undefined)?.[tail] !== undefined : variables[name] !== undefined;
        if (!has) throw new ApiFailure(400, 'missing_variable', `The template needs the variable ${name}`, `variables.${name}`);
      }
      return { success: true, data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Hi ${String(variables.name)}` }] } } as never;
    };
    const { view, calls } = await open(() => sse([{ content: 'Hello Bo' }]), send);
    const c = view.container;
    await click([...c.querySelectorAll('input[type="radio"]')].find((r) => (r as HTMLInputElement).value === 'prompt')!);
    await typeInto(byLabel(c, 'Prompt'), 'pr1');
    for (let i = 0; i < 6; i++) await settle();
    expect([...byLabel<HTMLSelectElement>(c, 'Version').options].map((o) => o.text)).toEqual(['The default', 'Version 1 (default)']);
    await typeInto(byLabel(c, 'name'), 'Bo');
    await typeInto(byLabel(c, 'team.city'), 'Oslo');
    await typeInto(byLabel(c, 'Message'), '');
    await submit(c);
    // name is read from the template (label, inside a section, is not required); team.city, from the partial, is named by gw.
    expect(rendered.slice(0, 2)).toEqual([
      ['/v1/prompts/pr1/render', { name: '' }],
      ['/v1/prompts/pr1/render', { name: '', team: { city: '' } }],
    ]);
    expect(c.textContent).not.toContain('label');
    expect(calls).toEqual([{ path: '/v1/prompts/pr1/completions', headers: expect.any(Object) as never, body: { variables: { name: 'Bo', team: { city: 'Oslo' } }, stream: true } }]);
    expect(region(c, 'Model A').textContent).toContain('Hi Bo');
    expect(region(c, 'Model A').textContent).toContain('Hello Bo');
  });
});
