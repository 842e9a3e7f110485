/**
 * The playground in Debian's Chromium against a gw in this process and a fake OpenAI upstream on
 * loopback that answers each model differently: two models side by side (both stream, each with
 * its log row), a system prompt and several turns (the upstream gets all of them, an edited turn
 * as edited), a tool call answered with a tool message, and a library prompt with its variable
 * as a field; axe-core finds nothing serious, and at 390 px the columns stack. Needs web/dist (make console).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { accessibilityProblems, assertConsoleTestable, fitsWindow, launchBrowser, screenshot, type Browser } from './browser.js';

const PROVIDER = 'fake-openai';

describe('the console playground in a browser', () => {
  let gw: GatewayApp;
  let browser: Browser;
  let page: Page;
  const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });

  before(async () => {
    assertConsoleTestable();
    gw = await startGatewayApp();
    const provider = await gw.app.http.post('/v1/providers').set(admin()).send({ name: PROVIDER, ai_provider_id: 'openai', key: 'sk-fake-provider-0000' });
    assert.equal(provider.status, 201, JSON.stringify(provider.body));
    const prompt = await gw.app.http
      .post('/v1/prompts')
      .set(admin())
      .send({ name: 'greeting', virtual_key: `@${PROVIDER}`, model: 'gpt-4o-mini', string: [{ role: 'system', content: 'Greet {{name}} warmly.' }, { role: 'user', content: 'Hi, I am {{name}}' }] });
    assert.equal(prompt.status, 201, JSON.stringify(prompt.body));
    browser = await launchBrowser();
    page = await browser.newPage();
    await signIn(page);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function signIn(target: Page): Promise<void> {
    await target.goto(`${gw.app.url}/console/`);
    await target.getByLabel('API key').fill(gw.app.adminKey);
    await target.getByRole('button', { name: 'Sign in', exact: true }).click();
    await target.getByRole('navigation', { name: 'Console pages' }).waitFor();
  }

  /** A fresh playground (a reload starts its state over; the key stays in the tab's session storage). */
  async function playground(target: Page = page): Promise<void> {
    await target.goto(`${gw.app.url}/console/playground`);
    await target.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
  }

  const column = (name: string, target: Page = page): Locator => target.getByRole('region', { name });
  const send = () => page.getByRole('button', { name: /^Send/ }).click();
  const upstreamChats = () => gw.fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const answerIn = (where: Locator, text: string) => where.getByTestId('playground-output').getByText(text, { exact: true }).waitFor();

  test('two models side by side: both answers stream in, each column shows the log row its call made', async () => {
    gw.fake.script((request) => ({ kind: 'reply', content: `${String(request.body.model)} answers: yes` }));
    try {
      await playground();
      // The model list offers the saved provider's models as @slug/model (loaded after the page shows:
      // waited for, failing after Playwright's timeout if they never come).
      const wanted = [`@${PROVIDER}/gpt-4o`, `@${PROVIDER}/gpt-4o-mini`];
      await page.waitForFunction(`${JSON.stringify(wanted)}.every((model) => [...document.querySelectorAll('datalist option')].some((option) => option.value === model))`);
      await page.getByLabel('Compare two models side by side').check();
      await column('Model A').getByLabel('Model', { exact: true }).fill(`@${PROVIDER}/gpt-4o`);
      await column('Model B').getByLabel('Model', { exact: true }).fill(`@${PROVIDER}/gpt-4o-mini`);
      await page.getByLabel('Message', { exact: true }).fill('Which is better?');
      const before = upstreamChats().length;
      await send();
      await answerIn(column('Model A'), 'gpt-4o answers: yes');
      await answerIn(column('Model B'), 'gpt-4o-mini answers: yes');
      const calls = upstreamChats().slice(before);
      assert.deepEqual(calls.map((c) => c.body.model).sort(), ['gpt-4o', 'gpt-4o-mini']);
      assert.ok(calls.every((c) => c.body.stream === true), 'both streamed');
      const rowA = column('Model A').getByTestId('playground-log');
      const rowB = column('Model B').getByTestId('playground-log');
      await rowA.waitFor();
      await rowB.waitFor();
      assert.match(await rowA.innerText(), /^200 · openai · gpt-4o · \d+ tokens · .+ · .+/);
      assert.match(await rowB.innerText(), /^200 · openai · gpt-4o-mini · \d+ tokens/);
      assert.deepEqual(await accessibilityProblems(page), []);
      await screenshot(page, 'playground-compare');
    } finally {
      gw.fake.script(undefined);
    }
  });

  test('a system prompt and several turns: the upstream gets the system message and every earlier turn, an edited one as edited', async () => {
    await playground();
    const a = column('Model A');
    await page.getByLabel('System prompt').fill('Answer in one line.');
    await a.getByLabel('Provider or config').selectOption(`provider:${PROVIDER}`);
    await a.getByLabel('Model', { exact: true }).fill('gpt-4o-mini');
    await page.getByLabel('Message', { exact: true }).fill('First question');
    await send();
    await answerIn(a, 'You said: First question');
    await page.getByLabel('Message', { exact: true }).fill('Second question');
    await send();
    await answerIn(a, 'You said: Second question');
    assert.deepEqual(upstreamChats().at(-1)!.body.messages, [
      { role: 'system', content: 'Answer in one line.' },
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'You said: First question' },
      { role: 'user', content: 'Second question' },
    ]);
    // An earlier answer edited (by keyboard) and a turn removed: the next call sends them so.
    await a.getByRole('button', { name: 'Edit message 2 of Model A' }).focus();
    await page.keyboard.press('Enter');
    await a.getByLabel('Message 2', { exact: true }).fill('An edited answer');
    await a.getByRole('button', { name: 'Done editing message 2 of Model A' }).click();
    await a.getByRole('button', { name: 'Remove message 4 of Model A' }).click();
    await a.getByRole('button', { name: 'Remove message 3 of Model A' }).click();
    await page.getByLabel('Message', { exact: true }).fill('Third question');
    await send();
    await answerIn(a, 'You said: Third question');
    assert.deepEqual(upstreamChats().at(-1)!.body.messages, [
      { role: 'system', content: 'Answer in one line.' },
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'An edited answer' },
      { role: 'user', content: 'Third question' },
    ]);
    await a.getByTestId('playground-log').waitFor();
    await page.getByRole('button', { name: 'Clear conversation' }).click();
    await a.getByText('No messages yet.').waitFor();
  });

  test('parameters and a tool: the call is shown, answered with a tool message, and the model answers from it (not streamed)', async () => {
    await playground();
    const a = column('Model A');
    await a.getByLabel('Model', { exact: true }).fill(`@${PROVIDER}/gpt-4o`);
    await page.getByText('Parameters and tools').click();
    await page.getByLabel('Temperature').fill('0.2');
    await page.getByLabel('Max tokens').fill('50');
    await page.getByLabel('Seed').fill('7');
    await page.getByLabel('Stream the answer').uncheck();
    // A tool the spec refuses (no name) is named before anything is sent.
    await page.getByLabel('Tools (JSON)').fill('[{"type": "function", "function": {}}]');
    const before = upstreamChats().length;
    await page.getByLabel('Message', { exact: true }).fill('Weather in Paris?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('alert').getByText(/Not sent: tools\.0\.function needs "name"/).waitFor();
    assert.equal(upstreamChats().length, before);

    const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } };
    await page.getByLabel('Tools (JSON)').fill(JSON.stringify([tool]));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await a.getByText('get_weather({"location":"Paris"})').waitFor();
    const asked = upstreamChats().at(-1)!.body;
    assert.notEqual(asked.stream, true, 'not streamed');
    assert.equal(asked.temperature, 0.2);
    assert.equal(asked.max_completion_tokens, 50);
    assert.equal(asked.seed, 7);
    assert.deepEqual(asked.tools, [tool]);

    await a.getByLabel('Result of get_weather (call_fake_1)').fill('Sunny, 21 °C');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await answerIn(a, 'You said: Weather in Paris?');
    const messages = upstreamChats().at(-1)!.body.messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages.slice(-2), [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_fake_1', content: 'Sunny, 21 °C' },
    ]);
    await a.getByTestId('playground-log').waitFor();
  });

  test('a prompt from the library: its variable is a field; the first turn renders it, the next sends the conversation back', async () => {
    await playground();
    const failed: string[] = [];
    const watch = (res: { status(): number; url(): string }) => void (res.status() >= 400 && failed.push(`${res.status()} ${res.url()}`));
    page.on('response', watch);
    await page.getByRole('radio', { name: 'A prompt from the library' }).check();
    await page.getByLabel('Prompt', { exact: true }).selectOption({ label: 'greeting' });
    await page.getByLabel('name', { exact: true }).fill('Bo');
    page.off('response', watch);
    assert.deepEqual(failed, [], 'the variables are read from the template: no failed render');
    await page.getByLabel('Message', { exact: true }).fill('');
    await send();
    const a = column('Model A');
    await answerIn(a, 'You said: Hi, I am Bo');
    const first = upstreamChats().at(-1)!.body;
    assert.equal(first.model, 'gpt-4o-mini', "the prompt's own model");
    assert.deepEqual(first.messages, [
      { role: 'system', content: 'Greet Bo warmly.' },
      { role: 'user', content: 'Hi, I am Bo' },
    ]);
    await a.getByTestId('playground-log').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('And again');
    await send();
    await answerIn(a, 'You said: And again');
    assert.deepEqual((upstreamChats().at(-1)!.body.messages as unknown[]).slice(2), [
      { role: 'assistant', content: 'You said: Hi, I am Bo' },
      { role: 'user', content: 'And again' },
    ]);
  });

  test('390 px wide: the two columns stack and the page fits the window', async () => {
    const narrow = await browser.newPage(390, 800);
    try {
      await signIn(narrow);
      await playground(narrow);
      await narrow.getByLabel('Compare two models side by side').check();
      const a = await column('Model A', narrow).boundingBox();
      const b = await column('Model B', narrow).boundingBox();
      assert.ok(a && b && b.y >= a.y + a.height, 'Model B below Model A');
      assert.ok(await fitsWindow(narrow));
      await screenshot(narrow, 'playground-narrow');
    } finally {
      await narrow.close();
    }
  });
});
