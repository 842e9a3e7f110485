/**
 * Spend and usage in the console, in Debian's Chromium against a gw in this process with a fake
 * OpenAI upstream: the top-N table by API key names the keys with their spend, a row opens Logs
 * filtered to that key (the filter in the address), cache savings show after a cached call, the
 * errors by status table counts the failed call, and the page passes axe-core. Needs web/dist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { fullEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { accessibilityProblems, assertConsoleTestable, launchBrowser, screenshot, type Browser } from './browser.js';

const usd = (n: number) => (n === 0 ? '$0' : n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toLocaleString('en', { maximumFractionDigits: 2 })}`);

for (const engine of fullEngines()) {
  describe(`analytics in the console (${engine.name})`, () => {
    let gw: GatewayApp;
    let browser: Browser;
    let page: Page;
    const keys: Record<string, { id: string; key: string }> = {};
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });

    before(async () => {
      assertConsoleTestable();
      gw = await startGatewayApp({ engine });
      for (const name of ['alpha key', 'beta key']) {
        const created = await gw.app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name, workspace_id: gw.app.boot.workspaceId, scopes: ['completions.write'] });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        keys[name] = created.body;
      }
      const call = (key: string, content: string, headers: Record<string, string> = {}) =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ 'x-gw-api-key': key, ...(headers['x-gw-config'] ? {} : { 'x-gw-provider': 'openai', authorization: 'Bearer sk-up' }), ...headers })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
      // alpha: three calls, then the same call again through the cache (a MISS, then a HIT); beta: one call, one failure.
      for (let i = 0; i < 3; i++) assert.equal((await call(keys['alpha key']!.key, `alpha ${i}`)).status, 200);
      const cached = { 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-up', cache: { mode: 'simple', max_age: 60 } }) };
      assert.equal((await call(keys['alpha key']!.key, 'cached question', cached)).headers['x-gw-cache-status'], 'MISS');
      assert.equal((await call(keys['alpha key']!.key, 'cached question', cached)).headers['x-gw-cache-status'], 'HIT');
      assert.equal((await call(keys['beta key']!.key, 'beta')).status, 200);
      gw.fake.next({ kind: 'error', status: 500, message: 'the fake upstream failed' });
      assert.equal((await call(keys['beta key']!.key, 'beta fails')).status, 500);
      await gw.app.services.requestLogs.flush();

      browser = await launchBrowser();
      page = await browser.newPage();
      await page.goto(`${gw.app.url}/console/`);
      await page.getByLabel('API key').fill(gw.app.adminKey);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Analytics', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Analytics', exact: true }).waitFor();
    });
    after(async () => {
      await browser?.close();
      await gw?.close();
    });

    /** The API's own figures for the last 24 hours, grouped by key. */
    async function byKey(): Promise<Map<string, { requests: number; cost: number }>> {
      const groups = await gw.app.http.get('/v1/analytics/groups/api_key').set(admin()).query({ start_time: new Date(Date.now() - 86_400_000).toISOString() });
      assert.equal(groups.status, 200, JSON.stringify(groups.body));
      return new Map((groups.body.data as Array<{ key: string; requests: number; cost: number }>).map((g) => [g.key, g]));
    }

    test('the top table by API key shows the keys by name with their spend, largest first', async () => {
      const groups = await byKey();
      const alpha = groups.get(keys['alpha key']!.id)!;
      const beta = groups.get(keys['beta key']!.id)!;
      assert.ok(alpha.cost > beta.cost && beta.cost > 0, `alpha spent more than beta: ${alpha.cost} > ${beta.cost}`);
      const table = page.getByRole('table', { name: 'Top api keys' });
      await table.getByRole('link', { name: 'alpha key' }).waitFor();
      const rows = (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim()));
      assert.deepEqual(rows.slice(0, 2), [
        ['alpha key', usd(alpha.cost), String(alpha.requests), '0'],
        ['beta key', usd(beta.cost), String(beta.requests), '1'],
      ]);
      assert.equal(await table.getByText(keys['alpha key']!.id).count(), 0, 'no key shown by its id');
    });

    test('cache savings show after a cached call, as the API counts them', async () => {
      const summary = await gw.app.http.get('/v1/analytics/summary').set(admin());
      assert.ok(summary.body.cache_savings > 0, 'the HIT saved what the MISS cost');
      const totals = page.getByLabel('Totals for the range');
      assert.match(await totals.innerText(), new RegExp(`Cache savings\\s*${usd(summary.body.cache_savings).replace(/[$.]/g, '\\$&')}`, 'i'));
      await page.getByTestId('chart-savings').locator('canvas').first().waitFor();
    });

    test('errors by status count the failed call and link to its logs', async () => {
      const errors = page.getByRole('table', { name: 'Errors by status' });
      await errors.getByRole('link', { name: '500' }).waitFor();
      assert.deepEqual((await errors.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim())), [['500', '5xx', '1', '100.0%']]);
    });

    test('the page passes axe-core with its tables and bars', async () => {
      await page.locator('[role="status"].loading').first().waitFor({ state: 'detached' });
      assert.deepEqual(await accessibilityProblems(page), []);
      await screenshot(page, `analytics-top-${engine.name}`);
    });

    test('a row opens Logs filtered to that key over the same range, the filter in the address', async () => {
      await page.getByRole('table', { name: 'Top api keys' }).getByRole('link', { name: 'alpha key' }).click();
      await page.getByRole('heading', { level: 1, name: 'Logs', exact: true }).waitFor();
      const url = new URL(page.url());
      assert.equal(url.pathname, '/console/logs');
      assert.equal(url.searchParams.get('api_key_id'), keys['alpha key']!.id);
      // The key filter is a list of key names, alpha's selected.
      const keyFilter = page.getByLabel('API key', { exact: true });
      assert.equal(await keyFilter.inputValue(), keys['alpha key']!.id);
      assert.ok((await keyFilter.locator('option').allInnerTexts()).includes('beta key'));
      assert.equal(await page.getByLabel('Time range').inputValue(), '24h');
      // alpha's five requests and none of beta's.
      await page.getByText('5 requests shown').waitFor();
      // Each row names its endpoint and its key by name; the cache hit names its provider and model.
      const headers = await page.locator('[role="columnheader"]').allTextContents();
      const rows = await page.locator('.vlist-row').evaluateAll((list) => list.map((row) => [...row.querySelectorAll('[role="cell"]')].map((cell) => cell.textContent)));
      const column = (name: string) => rows.map((row) => row[headers.indexOf(name)]);
      assert.deepEqual(new Set(column('Endpoint')), new Set(['chat.completions']));
      assert.deepEqual(new Set(column('API key')), new Set(['alpha key']));
      const hit = rows.find((row) => row[headers.indexOf('Cache')] === 'HIT')!;
      assert.deepEqual([hit[headers.indexOf('Provider')], hit[headers.indexOf('Model')]], ['openai', 'gpt-4o']);

      // The same address opened afresh (a bookmark) shows the same rows.
      await page.goto(url.href);
      await page.getByText('5 requests shown').waitFor();
    });

    test('a chart drills into Logs too: the errors chart opens the error rows', async () => {
      await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Analytics', exact: true }).click();
      await page.getByRole('link', { name: 'Open these logs (Errors (status 400 and above))' }).click();
      await page.getByRole('heading', { level: 1, name: 'Logs', exact: true }).waitFor();
      assert.equal(await page.getByLabel('Status', { exact: true }).inputValue(), '4xx,5xx');
      await page.getByText('1 requests shown').waitFor();
    });
  });
}
