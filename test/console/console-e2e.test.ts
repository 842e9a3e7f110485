/**
 * The console in a real browser (Debian's Chromium, headless) against a real gw in this process,
 * with a fake OpenAI upstream on loopback: sign in, find a request by its trace id and open it,
 * export logs, see charts with data, create and revoke a key, have an invalid config refused
 * before saving, stream a playground call and find its log row, and see what a narrow key may not
 * do hidden. Needs web/dist (make build). Screenshots land in test-output/screenshots/
 * (the ones in docs/images come from `make screenshots`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { followToCallback, startOidcIdp, type OidcIdp } from '../helpers/oidc-idp.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { accessibilityProblems, assertConsoleTestable, launchBrowser, screenshot, type Browser } from './browser.js';

const PROVIDER = 'fake-openai';
// SSO's callback is followed by the test (as sso.test.ts does); the browser then holds the session cookie.
const PUBLIC_URL = 'http://gw.test';
const CALLBACK = `${PUBLIC_URL}/v1/auth/sso/callback`;
const HISTORY = 150;
const ALL = HISTORY + 6;

/** A day of earlier traffic, recorded through POST /v1/logs: three providers, some 429s, varied latency. */
function history(now: number) {
  const kinds = [
    { provider: 'openai', model: 'gpt-4o', cost: 0.0042 },
    { provider: 'anthropic', model: 'claude-sonnet-4', cost: 0.0061 },
    { provider: 'google', model: 'gemini-2.5-flash', cost: 0.0009 },
  ];
  return Array.from({ length: HISTORY }, (_, i) => {
    const kind = kinds[i % 3]!;
    const prompt = 200 + ((i * 37) % 400);
    return {
      trace_id: `history-${i}`,
      created_at: new Date(now - 10 * 60_000 - Math.floor((i / HISTORY) * 22 * 3_600_000)).toISOString(),
      provider: kind.provider,
      model: kind.model,
      status: i % 11 === 5 ? 429 : 200,
      latency_ms: 300 + ((i * 73) % 900) + (i % 3) * 150,
      prompt_tokens: prompt,
      completion_tokens: 40 + ((i * 13) % 160),
      cost: kind.cost * (1 + (i % 5) / 4),
      metadata: { env: i % 4 === 0 ? 'dev' : 'prod' },
      request: { model: kind.model, messages: [{ role: 'user', content: `question ${i}` }] },
      response: { choices: [{ message: { role: 'assistant', content: `answer ${i}` } }] },
    };
  });
}

describe('the console in a browser', () => {
  let gw: GatewayApp;
  let idp: OidcIdp;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];
  /** When the set-up's own API writes were done: audit entries after it are the pages' changes. */
  let setupDone: string;
  const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });

  before(async () => {
    assertConsoleTestable();
    idp = await startOidcIdp([CALLBACK]);
    // Names the pages save (an OAuth token endpoint) are vetted at save: a stub resolver answers them.
    gw = await startGatewayApp({ env: { GW_PUBLIC_URL: PUBLIC_URL }, resolveHost: stubResolver(EXAMPLE_NAMES) });
    const sso = await gw.app.http.put('/v1/admin/organisation/sso').set(admin()).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, email_domains: [] });
    assert.equal(sso.status, 200, JSON.stringify(sso.body));
    const provider = await gw.app.http.post('/v1/providers').set(admin()).send({ name: PROVIDER, ai_provider_id: 'openai', key: 'sk-fake-provider-0000' });
    assert.equal(provider.status, 201, JSON.stringify(provider.body));
    const prompt = await gw.app.http
      .post('/v1/prompts')
      .set(admin())
      .send({ name: 'greeting', virtual_key: `@${PROVIDER}`, model: 'gpt-4o-mini', string: [{ role: 'user', content: 'Hi {{name}}' }] });
    assert.equal(prompt.status, 201, JSON.stringify(prompt.body));
    const budget = await gw.app.http.post('/v2/policies/usage-limits').set(admin()).send({ name: 'team budget', type: 'cost', credit_limit: 10, group_by: [{ key: 'api_key' }] });
    assert.equal(budget.status, 201, JSON.stringify(budget.body));
    // Traffic for the logs and charts: five answers and one upstream failure.
    const client = gw.openai({ 'x-gw-provider': `@${PROVIDER}` });
    for (let i = 1; i <= 5; i++) {
      await client.chat.completions.create({ model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini', messages: [{ role: 'user', content: `seed question ${i}` }] }, { headers: { 'x-gw-trace-id': `seed-${i}` } });
    }
    gw.fake.next({ kind: 'error', status: 500, message: 'the fake upstream failed' });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'fail' }] }, { headers: { 'x-gw-trace-id': 'seed-failed' } }));
    const earlier = history(Date.now());
    for (const batch of [earlier.slice(0, 75), earlier.slice(75)]) {
      const inserted = await gw.app.http.post('/v1/logs').set(admin()).send({ logs: batch });
      assert.equal(inserted.status, 201, JSON.stringify(inserted.body));
    }
    await gw.app.services.requestLogs.flush();

    setupDone = new Date().toISOString();
    browser = await launchBrowser();
    page = await browser.newPage();
    // A blocked script, style or eval shows as a console message or a page error.
    page.on('console', (message) => {
      if (/Content Security Policy|unsafe-eval/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => {
      if (/Content Security Policy|unsafe-eval/i.test(error.message)) cspViolations.push(error.message);
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await idp?.close();
  });

  async function signIn(target: Page, key: string): Promise<void> {
    await target.goto(`${gw.app.url}/console/`);
    await target.getByLabel('API key').fill(key);
    await target.getByRole('button', { name: 'Sign in', exact: true }).click();
    await target.getByRole('navigation', { name: 'Console pages' }).waitFor();
  }

  async function open(name: string, heading: string | RegExp = name): Promise<void> {
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  async function docScreenshot(name: string): Promise<void> {
    await screenshot(page, name, false);
  }

  /** Form controls in the page with no accessible name (no label, aria-label or text): none allowed. */
  async function unlabelledControls(): Promise<string[]> {
    return page.evaluate(`[...document.querySelectorAll('main input, main select, main textarea, main button')]
      .filter((el) => !(el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el.labels && el.labels.length > 0) || (el.tagName === 'BUTTON' && el.textContent.trim())))
      .map((el) => el.outerHTML.slice(0, 160))`);
  }

  test('gw\'s address leads to the console, whose first load is quiet: no failed call, nothing in the browser\'s console', async () => {
    const tab = await browser.newPage();
    const logged: string[] = [];
    const failed: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') logged.push(message.text());
    });
    tab.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    try {
      await tab.goto(`${gw.app.url}/`);
      assert.equal(new URL(tab.url()).pathname, '/console/');
      await tab.getByLabel('API key').waitFor();
      await tab.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
      assert.deepEqual(failed, []);
      assert.deepEqual(logged, []);
    } finally {
      await tab.close();
    }
  });

  test('a wrong key shows the API error; the right one signs in, kept in session storage and never in the URL', async () => {
    await page.goto(`${gw.app.url}/console/`);
    await page.getByRole('heading', { name: 'gw console' }).waitFor();
    await screenshot(page, 'sign-in');
    const wrong = await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', 'gw-wrong-key-0000000000000000');
    await page.getByLabel('API key').fill('gw-wrong-key-0000000000000000');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), new RegExp(wrong.body.error.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

    await signIn(page, gw.app.adminKey);
    assert.doesNotMatch(page.url(), new RegExp(gw.app.adminKey));
    assert.equal(await page.evaluate(`sessionStorage.getItem('gw.console.api_key')`), gw.app.adminKey);
    assert.equal(await page.evaluate(`localStorage.length`), 0, 'nothing kept beyond the tab');
    await page.reload();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
  });

  test('logs: a page of 100 in a windowed table, the next page on demand; a trace id filter finds one request, and its detail opens', async () => {
    await open('Logs');
    const rows = page.locator('.vlist-row');
    await page.getByText('100 requests shown, more to load').waitFor();
    assert.ok((await rows.count()) < 40, 'only the rows in view (and a few more) are in the page');
    await docScreenshot('console-logs');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText(`${ALL} requests shown`, { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);

    await page.getByLabel('Trace id').fill('seed-3');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await rows.nth(1).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /seed-3/);
    await rows.first().getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Request seed-3' }).waitFor();
    assert.match(await page.getByLabel('Response body').innerText(), /You said: seed question 3/);
    assert.match(await page.getByLabel('Request body').innerText(), /seed question 3/);
    assert.match(await page.getByLabel('Summary').innerText(), /openai/);
    await screenshot(page, 'log-detail');
  });

  test('logs: status filter, keyboard moves between rows, and an export is started and downloaded from the page', async () => {
    await open('Logs');
    await page.getByLabel('Status', { exact: true }).fill('5xx');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('.vlist-row').nth(1).waitFor({ state: 'detached' });
    assert.equal(await page.locator('.vlist-row').count(), 1);
    assert.match(await page.locator('.vlist-row').first().innerText(), /seed-failed/);

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('100 requests shown, more to load').waitFor();
    await page.locator('.vlist-row[data-index="0"] a').focus();
    await page.keyboard.press('ArrowDown');
    await page.locator('.vlist-row[data-index="1"] a:focus').waitFor();
    // End scrolls the window to the last row loaded, which was not in the page before.
    assert.equal(await page.locator('.vlist-row[data-index="99"]').count(), 0);
    await page.keyboard.press('End');
    await page.locator('.vlist-row[data-index="99"] a:focus').waitFor();

    await page.getByRole('button', { name: 'Export these logs' }).click();
    const exportsTable = page.getByRole('table', { name: 'Log exports' });
    await exportsTable.waitFor();
    await gw.app.services.logExports.idle();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const downloadButton = exportsTable.getByRole('button', { name: 'Download' });
    await downloadButton.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), downloadButton.click()]);
    const lines = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    assert.equal(lines.length, ALL);
    assert.ok(lines.some((line) => JSON.parse(line).trace_id === 'seed-failed'));
    await screenshot(page, 'logs-export');
  });

  test('analytics: the charts draw the traffic, and grouping by provider names it', async () => {
    await open('Analytics');
    const requests = page.getByTestId('chart-requests');
    await page.locator('[data-testid="chart-requests"]:not([data-points="0"])').waitFor();
    await requests.locator('canvas').first().waitFor();
    assert.match(await page.getByLabel('Totals for the range').innerText(), new RegExp(`Requests\\s*${ALL}`, 'i'));
    for (const id of ['errors', 'tokens', 'cost', 'latency', 'cache']) await page.getByTestId(`chart-${id}`).locator('canvas').first().waitFor();
    // The chart's own numbers, as its table shows them: every request in the range.
    await requests.getByText('Show as a table').click();
    const counts = await requests.locator('.chart-table tbody td').allInnerTexts();
    assert.equal(counts.reduce((sum, n) => sum + Number(n.replace(/,/g, '')), 0), ALL);
    await requests.getByText('Show as a table').click();
    await docScreenshot('console-analytics');

    await page.getByLabel('Group by').selectOption('provider');
    for (const provider of ['openai', 'anthropic', 'google']) await requests.locator('.u-legend').getByText(provider, { exact: true }).waitFor();
    await screenshot(page, 'analytics-by-provider');
  });

  test('keys: a new key shows its secret once and works; revoked, it stops working', async () => {
    await open('API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('e2e key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    const works = await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', secret);
    assert.equal(works.status, 200);
    assert.equal(works.body.api_key.name, 'e2e key');
    assert.deepEqual(works.body.scopes, ['completions.write']);
    await screenshot(page, 'keys-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('new-secret').count(), 0, 'the secret is gone from the page');

    await page.getByRole('button', { name: 'Rotate e2e key' }).click();
    const rotated = (await page.getByTestId('new-secret').innerText()).trim();
    assert.notEqual(rotated, secret);
    assert.equal((await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', rotated)).body.api_key.name, 'e2e key');
    await page.getByRole('button', { name: 'I have copied it' }).click();

    await page.getByRole('button', { name: 'Revoke e2e key' }).click();
    await page.getByRole('button', { name: 'Confirm revoking e2e key' }).click();
    await page.getByRole('button', { name: 'Revoke e2e key' }).waitFor({ state: 'detached' });
    assert.equal((await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', rotated)).status, 401);
    await screenshot(page, 'keys');
  });

  test('keys: one made with a role preset and a budget of two requests works twice, then gw refuses it; the list shows the budget used', async () => {
    await open('API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('heading', { name: 'New key' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('budgeted key');
    await page.getByLabel('Role preset').selectOption('member');
    assert.ok(await page.getByRole('checkbox', { name: 'list (logs.list)', exact: true }).isChecked(), 'the member preset holds logs.list');
    assert.equal(await page.getByRole('checkbox', { name: 'list (audit_logs.list)', exact: true }).isChecked(), false, 'but no organisation scope');
    await page.getByLabel('Budget counts').selectOption('requests');
    await page.getByLabel('Budget limit').fill('2');
    await page.getByLabel('Rate limit counts').selectOption('requests');
    await page.getByLabel('Rate limit', { exact: true }).fill('100');
    await screenshot(page, 'keys-new');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    await page.getByRole('button', { name: 'I have copied it' }).click();

    const held = await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', secret);
    assert.ok(held.body.scopes.includes('logs.list') && !held.body.scopes.includes('audit_logs.list'), JSON.stringify(held.body.scopes));
    const call = (trace: string) =>
      gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': secret, 'x-gw-provider': `@${PROVIDER}`, 'x-gw-trace-id': trace })
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'within the budget?' }] });
    assert.equal((await call('budget-1')).status, 200);
    assert.equal((await call('budget-2')).status, 200);
    const refused = await call('budget-3');
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'usage_limit_exceeded');
    await gw.app.services.requestLogs.flush();

    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'budgeted key' });
    await row.getByText('2 requests (100.0%)').waitFor();
    assert.match(await row.innerText(), /2 requests in all|2 requests monthly/);
    await screenshot(page, 'keys-budget');

    // A larger budget from the list, and gw takes the key's calls again.
    await row.getByRole('button', { name: 'Edit the limits of budgeted key' }).click();
    await page.getByRole('heading', { name: 'Limits of budgeted key' }).waitFor();
    await page.getByLabel('Budget limit').fill('5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await row.getByText('2 requests (40.0%)').waitFor();
    assert.equal((await call('budget-4')).status, 200);
  });

  test('configs: an invalid config is refused in the browser with the schema message marked in the JSON; JSON that does not parse locks the form', async () => {
    await open('Configs');
    await page.getByRole('link', { name: 'New config' }).click();
    await page.getByRole('heading', { level: 1, name: 'New config' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Broken');
    const editor = page.getByRole('textbox', { name: 'Config (JSON)' });
    await page.locator('.cm-content').waitFor(); // CodeMirror, loaded on demand
    await editor.fill(JSON.stringify({ strategy: { mode: 'sometimes' }, targets: [{ provider: `@${PROVIDER}` }] }));
    // The schema's error is marked at the failing value, in the editor, as it is typed.
    await page.locator('.cm-lintRange-error').first().waitFor();
    assert.equal(await page.locator('.cm-lintRange-error').first().innerText(), '"sometimes"');
    await page.getByRole('button', { name: 'Create config' }).click();
    const problem = page.getByTestId('json-problem');
    assert.match(await problem.innerText(), /config\.strategy\.mode must be one of .*"fallback"/);
    assert.equal((await gw.app.http.get('/v1/configs').set(admin())).body.data.length, 0, 'nothing reached gw');
    await screenshot(page, 'config-invalid');

    await editor.fill('{ "strategy": ');
    assert.match(await page.getByTestId('form-locked').innerText(), /Not valid JSON/);
    assert.match(await problem.innerText(), /Not valid JSON/);
  });

  test('configs: a fallback between two saved providers built with the form, by keyboard, answers through the second when the first fails', async () => {
    const second = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'e2e-second', ai_provider_id: 'openai', key: 'sk-fake-second-0000' });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    await open('Configs');
    await page.getByRole('link', { name: 'New config' }).click();
    await page.getByRole('heading', { level: 1, name: 'New config' }).waitFor();
    await page.locator('.cm-content').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Fallback');
    await page.getByLabel('Slug').fill('e2e-fallback');
    await page.getByLabel('Strategy', { exact: true }).selectOption('fallback');
    await page.getByLabel('Fall back on statuses').fill('500, 503');
    // By keyboard: type the providers, Tab between fields.
    await page.getByLabel('Target 1: provider').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(`@${PROVIDER}`);
    await page.getByLabel('Target 2: provider').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('@e2e-second');
    await page.keyboard.press('Tab'); // virtual key
    await page.keyboard.press('Tab'); // model override
    await page.keyboard.type('gpt-4o-mini');
    const json = await page.locator('.cm-content').innerText();
    assert.deepEqual(JSON.parse(json), { strategy: { mode: 'fallback', on_status_codes: [500, 503] }, targets: [{ provider: `@${PROVIDER}` }, { provider: '@e2e-second', override_params: { model: 'gpt-4o-mini' } }] });
    // The JSON editor does not trap Tab: focus moves on past it.
    await page.locator('.cm-content').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('Boolean(document.activeElement && document.activeElement.closest(".cm-editor"))'), false, 'Tab leaves the editor');
    assert.deepEqual(await accessibilityProblems(page), [], 'the config editor has no serious or critical axe violation');
    assert.deepEqual(await unlabelledControls(), []);
    await docScreenshot('config-form');
    await page.getByRole('button', { name: 'Create config' }).click();
    await page.getByRole('heading', { level: 1, name: 'Config Fallback' }).waitFor();
    await page.getByText('Version 1', { exact: false }).waitFor();
    const saved = (await gw.app.http.get('/v1/configs').set(admin())).body.data.find((c: { slug: string }) => c.slug === 'e2e-fallback');
    assert.ok(saved, 'the config is saved');

    // Used: the first provider fails with a 500, the config falls back to the second, which answers.
    const before = gw.fake.requests.length;
    gw.fake.next({ kind: 'error', status: 500, message: 'the first target failed' });
    const answer = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': saved.id }).send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'through the config' }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const calls = gw.fake.requests.slice(before);
    assert.deepEqual(calls.map((c) => c.headers.authorization), ['Bearer sk-fake-provider-0000', 'Bearer sk-fake-second-0000']);
    assert.equal(calls[1]!.body.model, 'gpt-4o-mini', 'the second target overrides the model');
  });

  test('playground: a streamed call through a saved provider shows the answer and the log row it made', async () => {
    await open('Playground');
    await page.getByLabel('Provider or config').selectOption(`provider:${PROVIDER}`);
    await page.getByLabel('Model', { exact: true }).fill('gpt-4o-mini');
    await page.getByLabel('Message', { exact: true }).fill('Stream me');
    const before = gw.fake.requests.length;
    await page.getByRole('button', { name: 'Send (streamed)' }).click();
    await page.getByTestId('playground-output').getByText('You said: Stream me', { exact: true }).waitFor();
    assert.equal(gw.fake.requests.length, before + 1);
    assert.equal(gw.fake.requests.at(-1)!.body.stream, true);
    const row = page.getByTestId('playground-log');
    await row.waitFor();
    assert.match(await row.innerText(), /^200 · openai · gpt-4o-mini/);
    await screenshot(page, 'playground');
    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Request / }).waitFor();
    assert.match(await page.getByLabel('Summary').innerText(), /Streamed\s*yes/i);

  });

  test('providers: one is created with its key typed in, shown only masked, and deleted from the page', async () => {
    const secret = 'sk-e2e-typed-secret-9876';
    await open('Providers');
    await page.getByRole('table', { name: 'Providers' }).getByText(`@${PROVIDER}`).waitFor();
    // By keyboard: Enter on the button opens the form with the focus on its heading.
    await page.getByRole('button', { name: 'New provider' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('form h2:focus', { hasText: 'New provider' }).waitFor();
    assert.deepEqual(await unlabelledControls(), []);
    await page.getByLabel('Name', { exact: true }).fill('e2e backup');
    await page.getByLabel('Slug').fill('e2e-backup');
    await page.getByLabel('Provider key').fill(secret);
    assert.equal(await page.getByLabel('Provider key').getAttribute('type'), 'password', 'the key is never displayed as it is typed');
    await page.getByRole('button', { name: 'Create provider' }).click();
    const table = page.getByRole('table', { name: 'Providers' });
    await table.getByText('@e2e-backup').waitFor();
    const saved = (await gw.app.http.get('/v1/providers/e2e-backup').set(admin())).body;
    assert.equal(saved.name, 'e2e backup');
    assert.ok(saved.masked_key && saved.masked_key !== secret);
    await table.getByText(saved.masked_key).waitFor();
    assert.doesNotMatch(await page.content(), new RegExp(`${secret}|sk-fake-provider-0000`), 'no secret anywhere in the page');
    // The saved key works: a gateway call through the new provider reaches the fake upstream with it.
    await gw.openai({ 'x-gw-provider': '@e2e-backup' }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'via backup' }] });
    assert.equal(gw.fake.requests.at(-1)!.headers.authorization, `Bearer ${secret}`);
    await screenshot(page, 'providers');

    await page.getByRole('button', { name: 'Edit e2e backup' }).click();
    assert.equal(await page.getByLabel('Provider key').inputValue(), '', 'editing never fills the secret back in');
    await page.getByText(`Stored as ${saved.masked_key}; leave empty to keep it`).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Delete e2e backup' }).click();
    await page.getByRole('button', { name: 'Confirm deleting e2e backup' }).click();
    await table.getByText('@e2e-backup').waitFor({ state: 'detached' });
    assert.equal((await gw.app.http.get('/v1/providers/e2e-backup').set(admin())).status, 404);
  });

  test('integrations: an OAuth client-credentials integration from the page; its client secret typed once, stored masked, never in the page', async () => {
    const secret = 'oauth-e2e-client-secret-4321';
    await open('Providers');
    await page.getByRole('button', { name: 'New integration' }).click();
    await page.getByLabel('Name', { exact: true }).fill('e2e entra');
    await page.getByLabel('Slug').fill('e2e-entra');
    await page.getByLabel('Auth type').selectOption('oauthClientCredentials');
    assert.equal(await page.getByLabel('Provider key').count(), 0, 'no key box for an OAuth integration');
    await page.getByLabel('Token endpoint').fill('https://login.example.com/oauth2/token');
    await page.getByLabel('Client id').fill('e2e-client');
    await page.getByLabel('Client secret').fill(secret);
    assert.equal(await page.getByLabel('Client secret').getAttribute('type'), 'password');
    assert.deepEqual(await unlabelledControls(), []);
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.getByRole('table', { name: 'Integrations' }).getByText('e2e-entra').waitFor();
    const saved = (await gw.app.http.get('/v1/integrations/e2e-entra').set(admin())).body;
    assert.equal(saved.auth_type, 'oauthClientCredentials');
    assert.equal(saved.configurations.oauth_client_id, 'e2e-client');
    assert.equal(saved.configurations.oauth_token_endpoint, 'https://login.example.com/oauth2/token');
    assert.ok(saved.configurations.oauth_client_secret && saved.configurations.oauth_client_secret !== secret, 'stored masked');

    await page.getByRole('button', { name: 'Edit e2e entra' }).click();
    assert.equal(await page.getByLabel('Client id').inputValue(), 'e2e-client');
    assert.equal(await page.getByLabel('Client secret').inputValue(), '', 'editing never fills the secret back in');
    await page.getByLabel('Scope').fill('api://e2e/.default');
    await page.getByRole('button', { name: 'Save integration' }).click();
    await page.getByRole('form', { name: 'Edit integration e2e entra' }).waitFor({ state: 'detached' });
    const edited = (await gw.app.http.get('/v1/integrations/e2e-entra').set(admin())).body;
    assert.equal(edited.configurations.oauth_scope, 'api://e2e/.default');
    assert.equal(edited.configurations.oauth_client_secret, saved.configurations.oauth_client_secret, 'the secret left empty is kept');
    assert.doesNotMatch(await page.content(), new RegExp(secret), 'no secret anywhere in the page');
    await gw.app.http.delete('/v1/integrations/e2e-entra').set(admin());
  });

  test('policies: a usage limit is created from the page, and after traffic its usage per entity shows', async () => {
    await open('Policies');
    await page.getByRole('button', { name: 'New usage limit' }).click();
    await page.getByLabel('Name', { exact: true }).fill('e2e per team');
    await page.getByLabel('Counts').selectOption('requests');
    await page.getByLabel('Limit', { exact: true }).fill('100');
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByLabel('Group 1 key').fill('metadata.team');
    assert.deepEqual(await unlabelledControls(), []);
    await page.getByRole('button', { name: 'Create usage limit' }).click();
    await page.getByRole('table', { name: 'Usage-limit policies' }).getByText('e2e per team').waitFor();
    const client = gw.openai({ 'x-gw-provider': `@${PROVIDER}`, 'x-gw-metadata': JSON.stringify({ team: 'blue' }) });
    for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `budgeted ${i}` }] });

    await page.getByRole('button', { name: 'Show current usage of e2e per team' }).click();
    const usage = page.getByRole('table', { name: 'Usage per entity' });
    await usage.waitFor();
    assert.match(await usage.innerText(), /metadata\.team=blue\s+2 \/ 100\s+98/);
    await screenshot(page, 'policies');
  });

  test('prompts: a new version saved from the page, and the render preview of the default and of that version', async () => {
    await open('Prompts');
    await page.getByRole('button', { name: 'Open greeting' }).click();
    await page.getByLabel('Variables (JSON)').fill('{"name": "Ada"}');
    await page.getByRole('button', { name: 'Render', exact: true }).click();
    const rendered = page.getByLabel('Rendered request');
    await rendered.waitFor();
    assert.match(await rendered.innerText(), /"content": "Hi Ada"/);

    await page.getByRole('button', { name: 'New version' }).click();
    await page.getByLabel('Template').fill(JSON.stringify([{ role: 'user', content: 'Hello {{name}}, from version 2' }]));
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByText('Saved as version 2').waitFor();
    await page.getByLabel('Version to render').selectOption('2');
    assert.deepEqual(await unlabelledControls(), []);
    await page.getByRole('button', { name: 'Render', exact: true }).click();
    await rendered.getByText('Hello Ada, from version 2', { exact: false }).waitFor();
    assert.equal((await gw.app.http.get('/v1/prompts/greeting').set(admin())).body.prompt_version, 1, 'a new version is not the default');
    assert.equal((await gw.app.http.get('/v1/prompts/greeting@2').set(admin())).body.virtual_key, `@${PROVIDER}`, 'the new version keeps the fields not edited');
    await screenshot(page, 'prompts');

    // A label created below is offered in the versions' label select; a partial is saved.
    await page.getByRole('button', { name: 'New label' }).click();
    await page.getByLabel('Label name').fill('e2e-canary');
    await page.getByRole('button', { name: 'Create label' }).click();
    await page.getByRole('table', { name: 'Labels' }).getByText('e2e-canary').waitFor();
    await page.getByLabel('Label of version 2').selectOption({ label: 'e2e-canary' });
    await page.getByRole('button', { name: 'New partial' }).click();
    await page.getByLabel('Partial name').fill('e2e sign-off');
    await page.getByLabel('Partial slug').fill('e2e-sign-off');
    await page.getByLabel('Partial text').fill('Thanks, {{name}}');
    assert.deepEqual(await unlabelledControls(), []);
    await page.getByRole('button', { name: 'Create partial' }).click();
    await page.getByRole('table', { name: 'Partials' }).getByText('{{>e2e-sign-off}}').waitFor();
    assert.equal((await gw.app.http.get('/v1/prompts/partials/e2e-sign-off').set(admin())).body.string, 'Thanks, {{name}}');
    assert.equal((await gw.app.http.get('/v1/prompts/greeting@e2e-canary').set(admin())).body.prompt_version, 2, 'the new label points at version 2');
  });

  test('guardrails: checks that break the spec are refused in the browser; a valid guardrail is created', async () => {
    await open('Guardrails');
    await page.getByRole('button', { name: 'New guardrail' }).click();
    await page.getByLabel('Name', { exact: true }).fill('No SSNs');
    const checks = page.getByRole('textbox', { name: 'Checks (JSON)' });
    await page.locator('.cm-content').waitFor();
    const starter = await page.locator('.cm-content').innerText();
    await checks.fill('[{"parameters": {}}]');
    await page.getByRole('button', { name: 'Create guardrail' }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    assert.equal(await problem.innerText(), 'Not saved: checks.0 needs "id"');
    assert.equal((await gw.app.http.get('/v1/guardrails').set(admin())).body.data.length, 0, 'nothing reached gw');
    assert.deepEqual(await unlabelledControls(), []);

    await checks.fill(starter);
    await page.getByRole('button', { name: 'Create guardrail' }).click();
    await page.getByRole('table', { name: 'Guardrails' }).getByText('default.regexMatch').waitFor();
    const saved = (await gw.app.http.get('/v1/guardrails').set(admin())).body.data;
    assert.deepEqual(saved.map((g: { name: string; checks: Array<{ id: string }> }) => [g.name, g.checks[0]!.id]), [['No SSNs', 'default.regexMatch']]);
    await screenshot(page, 'guardrails');
  });

  test('workspaces: one is created from the page, and its members panel opens', async () => {
    await open('Workspaces');
    await page.locator('main').getByText('(default)').first().waitFor();
    await page.getByRole('button', { name: 'New workspace' }).click();
    await page.getByLabel('Name', { exact: true }).fill('e2e lab');
    await page.getByLabel('Slug').fill('e2e-lab');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('table', { name: 'Workspaces' }).getByText('e2e-lab').waitFor();
    assert.equal((await gw.app.http.get('/v1/workspaces/e2e-lab').set(admin())).body.name, 'e2e lab');
    await page.getByRole('button', { name: 'Show the members of e2e lab' }).click();
    await page.getByRole('form', { name: 'Add a member to e2e lab' }).waitFor();
    assert.equal(await page.getByRole('alert').count(), 0);
    assert.deepEqual(await unlabelledControls(), []);
    await screenshot(page, 'workspaces');
  });

  test('a narrow window: the logs and management pages fit without sideways scrolling of the page', async () => {
    const narrow = await browser.newPage(390, 800);
    await signIn(narrow, gw.app.adminKey);
    await narrow.goto(`${gw.app.url}/console/logs`);
    await narrow.locator('.vlist-row').first().waitFor();
    assert.ok(await narrow.evaluate(`document.documentElement.scrollWidth <= window.innerWidth + 1`));
    await screenshot(narrow, 'logs-narrow');
    // The management pages' wide tables scroll in their own box, not the page.
    for (const [path, table] of [['providers', 'Providers'], ['policies', 'Usage-limit policies'], ['prompts', 'Prompts']] as const) {
      await narrow.goto(`${gw.app.url}/console/${path}`);
      await narrow.getByRole('table', { name: table }).waitFor();
      assert.ok(await narrow.evaluate(`document.documentElement.scrollWidth <= window.innerWidth + 1`), `${path} fits a narrow window`);
    }
    await screenshot(narrow, 'policies-narrow');
    await narrow.close();
  });

  test('a key with only log scopes sees only the logs page; what it may not do is not offered', async () => {
    const created = await gw.app.http
      .post('/v1/api-keys/workspace/service')
      .set(admin())
      .send({ name: 'log reader', workspace_id: gw.app.boot.workspaceId, scopes: ['logs.list', 'logs.view'] });
    assert.equal(created.status, 201);
    const reader = await browser.context.browser()?.newContext() ?? browser.context;
    const tab = await reader.newPage();
    try {
      await signIn(tab, created.body.key);
      const links = await tab.getByRole('navigation', { name: 'Console pages' }).getByRole('link').allInnerTexts();
      assert.deepEqual(links, ['Logs']);
      await tab.locator('.vlist-row').first().waitFor();
      assert.equal(await tab.getByRole('button', { name: 'Export these logs' }).count(), 0, 'no logs.export: no export button');
      await tab.goto(`${gw.app.url}/console/keys`);
      await tab.getByText('There is no page at /keys').waitFor();
      await screenshot(tab, 'narrow-key');
    } finally {
      await tab.close();
    }
  });

  test('SSO: with the session cookie the console signs in by itself, sends the CSRF token on writes, and signs out', async () => {
    const tab = await browser.newPage();
    await tab.goto(`${gw.app.url}/console/`);
    const login = new URL((await tab.getByRole('link', { name: 'Sign in with SSO' }).getAttribute('href'))!, gw.app.url);
    assert.equal(login.pathname, '/v1/auth/sso/login');
    const returnTo = login.searchParams.get('return_to')!;
    assert.match(returnTo, /^\/console\/\?/, 'back to the console, marked as coming from SSO');

    idp.signInAs({ sub: 'idp-owner', email: 'owner@gw.local' });
    const start = await gw.app.http.get('/v1/auth/sso/login').query({ return_to: returnTo });
    assert.equal(start.status, 302, JSON.stringify(start.body));
    const back = await followToCallback(start.headers.location!, CALLBACK);
    const done = await gw.app.http.get(back.pathname + back.search);
    assert.equal(done.headers.location, returnTo);
    const cookie = ([] as string[]).concat(done.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    await browser.context.addCookies([{ name, value, url: gw.app.url }]);
    const keyOnly = await gw.app.http.get('/v1/auth/key').set('cookie', cookie);
    assert.equal(keyOnly.status, 401, 'GET /v1/auth/key is for keys; a session asks /v1/auth/self');
    assert.equal(keyOnly.body.error.code, 'api_key_required');

    try {
      // Back from the callback, the console finds the session; a reload (or another tab) finds it again.
      await tab.goto(`${gw.app.url}${returnTo}`);
      await tab.getByRole('navigation', { name: 'Console pages' }).waitFor();
      assert.equal(new URL(tab.url()).search, '', 'the marker is taken out of the address');
      await tab.reload();
      await tab.getByRole('navigation', { name: 'Console pages' }).waitFor();
      assert.match(await tab.locator('.who').innerText(), /owner@gw\.local/);
      assert.equal(await tab.evaluate(`sessionStorage.length`), 0, 'no key kept: the session lives in the cookie');
      // A write with the cookie is refused without the session's CSRF token: the console sends it.
      await tab.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Playground', exact: true }).click();
      await tab.getByLabel('Provider or config').selectOption(`provider:${PROVIDER}`);
      await tab.getByLabel('Model', { exact: true }).fill('gpt-4o-mini');
      await tab.getByLabel('Mock response').fill('Hello from a console session');
      await tab.getByRole('button', { name: 'Send (streamed)' }).click();
      await tab.getByTestId('playground-output').getByText('Hello from a console session', { exact: true }).waitFor();
      await screenshot(tab, 'sso-session');
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByLabel('API key').waitFor();
      assert.equal((await gw.app.http.get('/v1/auth/self').set('cookie', cookie)).status, 401, 'the session ended at gw');
    } finally {
      await tab.close();
      await browser.context.clearCookies();
    }
  });

  test('audit log: each change made from the pages above has its entry, found on the Audit log page by its action, with its request', async () => {
    const entries = (await gw.app.http.get('/v1/audit-logs').set(admin()).query({ limit: 100, start_time: setupDone })).body.data as Array<{ action: string; path: string; method: string }>;
    const actions = new Set(entries.map((entry) => entry.action));
    const keyCreated = [...actions].find((action) => /^create\w*ApiKey$/.test(action));
    assert.ok(keyCreated, `a key created from the page: ${[...actions].join()}`);
    const made = [keyCreated, 'deleteApiKey', 'createConfig', 'createProvider', 'deleteProvider', 'createUsageLimitsPolicy', 'createGuardrail', 'createWorkspace'];
    assert.deepEqual(made.filter((action) => !actions.has(action)), [], `every change has its entry: ${[...actions].join()}`);

    await open('Audit log');
    const table = page.getByRole('table', { name: 'Audit log entries' });
    for (const action of made) {
      const expected = entries.filter((entry) => entry.action === action);
      await page.getByLabel('Action').fill(action);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await table.getByRole('button', { name: new RegExp(`^Details of ${action} `) }).first().waitFor();
      assert.ok((await table.getByRole('button', { name: new RegExp(`^Details of ${action} `) }).count()) >= expected.length, action);
      await table.getByRole('button', { name: new RegExp(`^Details of ${action} `) }).first().click();
      const detail = page.getByRole('region', { name: action });
      await detail.waitFor();
      assert.match(await detail.innerText(), new RegExp(expected.map((entry) => entry.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')), `${action}: the entry shows its path`);
    }
  });

  test('no Content-Security-Policy violation on any page', () => {
    assert.deepEqual(cspViolations, []);
  });
});
