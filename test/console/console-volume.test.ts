/**
 * The console over 100,000 log rows (scripts/seed-logs.ts, into the test gw's own organisation,
 * on three named keys): Logs shows its first page and the next on demand, Analytics its totals
 * and top tables, all matching what the API answers. How long each page takes is measured by
 * scripts/time-console.ts (make bench-console), not asserted here. Needs web/dist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { fullEngines } from '../helpers/engines.js';
import { assertConsoleTestable, launchBrowser, type Browser } from './browser.js';
import { startConsoleDemo, type ConsoleDemo } from './console-demo.js';

const ROWS = 100_000;
/** The demo's own calls through gw, besides the seeded rows. */
const CALLS = 6;

for (const engine of fullEngines()) {
  describe(`the console over ${ROWS.toLocaleString('en')} log rows (${engine.name})`, () => {
    let demo: ConsoleDemo;
    let browser: Browser;
    let page: Page;

    before(async () => {
      assertConsoleTestable();
      demo = await startConsoleDemo({ rows: ROWS, engine });
      browser = await launchBrowser();
      page = await browser.newPage();
      await demo.signIn(page);
    });
    after(async () => {
      await browser?.close();
      await demo?.close();
    });

    const nav = (name: string) => page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name, exact: true }).click();

    test('Logs: the newest 100 rows of the last 24 hours, then 100 more on demand', async () => {
      await nav('Logs');
      await page.getByText('100 requests shown, more to load').waitFor();
      const newest = await demo.gw.app.http.get('/v1/logs').set({ 'x-gw-api-key': demo.gw.app.adminKey }).query({ limit: 1 });
      assert.equal(await page.getByRole('table', { name: 'Request logs' }).getAttribute('aria-rowcount'), '100');
      await page.getByText(newest.body.data[0].trace_id, { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Load more' }).click();
      await page.getByText('200 requests shown, more to load').waitFor();
    });

    test('Analytics over 30 days: every row counted, the top keys by name as the API groups them', async () => {
      await nav('Analytics');
      await page.getByLabel('Time range').selectOption('30d');
      const totals = page.getByLabel('Totals for the range');
      await totals.getByText((ROWS + CALLS).toLocaleString('en')).waitFor();
      const table = page.getByRole('table', { name: 'Top api keys' });
      await page.getByLabel('Rank by').selectOption('requests');
      const groups = await demo.gw.app.http
        .get('/v1/analytics/groups/api_key')
        .set({ 'x-gw-api-key': demo.gw.app.adminKey })
        .query({ start_time: new Date(Date.now() - 30 * 86_400_000).toISOString() });
      const names = new Map([...demo.keys].map(([name, id]) => [id, name]));
      const expected = (groups.body.data as Array<{ key: string | null; requests: number }>)
        .filter((g) => g.key && names.has(g.key))
        .sort((a, b) => b.requests - a.requests)
        .map((g) => [names.get(g.key!)!, g.requests.toLocaleString('en')]);
      assert.equal(expected.length, 3);
      await table.getByRole('link', { name: expected[0]![0] }).waitFor();
      const rows = (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim()).slice(0, 2));
      assert.deepEqual(rows.filter(([name]) => demo.keys.has(name!)), expected);
      for (const id of ['requests', 'cost', 'latency']) await page.getByTestId(`chart-${id}`).locator('canvas').first().waitFor();
    });
  });
}
