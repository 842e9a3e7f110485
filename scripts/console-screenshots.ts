/**
 * The console's screenshots for docs/console.md (`make screenshots`): a gw in this process with
 * demo data (test/console/console-demo.ts: named keys, a provider, a config, an MCP server, real
 * calls and 5,000 seeded log rows), Debian's Chromium at 1280x800, one PNG of the window per page
 * in docs/images/console-<page>.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { projectRoot } from '../core/project-root.js';
import { launchBrowser } from '../test/console/browser.js';
import { drawn, startConsoleDemo } from '../test/console/console-demo.js';

const OUT = path.join(projectRoot(), 'docs', 'images');

async function settled(page: Page): Promise<void> {
  await page.locator('[role="status"].loading').first().waitFor({ state: 'detached' });
  await drawn(page, 300);
}

async function main(): Promise<void> {
  const demo = await startConsoleDemo({ rows: 5000 });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage(1280, 800);
    await demo.signIn(page);
    const base = `${demo.gw.app.url}/console`;
    // The newest call made through gw (not a seeded row): its detail has a route and real bodies.
    const real = await demo.gw.app.http.get('/v1/logs').set({ 'x-gw-api-key': demo.gw.app.adminKey }).query({ limit: 1, status: '200', metadata: 'env=prod', provider: 'openai' });
    const shots: Array<[name: string, open: () => Promise<void>]> = [
      ['logs', async () => { await page.goto(`${base}/logs`); await page.getByText(/requests shown/).waitFor(); }],
      ['log-detail', async () => { await page.goto(`${base}/logs/${real.body.data[0].id}`); await page.getByRole('heading', { name: 'Response body' }).waitFor(); }],
      [
        'analytics',
        async () => {
          await page.goto(`${base}/analytics`);
          await page.getByLabel('Time range').selectOption('7d');
          await page.getByRole('table', { name: 'Top api keys' }).getByRole('link').first().waitFor();
          await page.locator('[data-testid="chart-requests"]:not([data-points="0"]) canvas').first().waitFor();
        },
      ],
      [
        'analytics-top',
        async () => {
          await page.getByRole('heading', { name: 'Spend and requests' }).scrollIntoViewIfNeeded();
        },
      ],
      ['keys', async () => { await page.goto(`${base}/keys`); await page.getByRole('button', { name: 'New key' }).click(); }],
      ['configs', async () => { await page.goto(`${base}/configs`); await page.getByRole('link', { name: 'resilient chat' }).click(); await page.locator('.cm-editor').first().waitFor(); }],
      ['playground', async () => { await page.goto(`${base}/playground`); await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor(); }],
      ['mcp', async () => { await page.goto(`${base}/mcp`); await page.getByText('docs-search').first().waitFor(); }],
      ['audit', async () => { await page.goto(`${base}/audit`); await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor(); }],
    ];
    mkdirSync(OUT, { recursive: true });
    for (const [name, open] of shots) {
      await open();
      await settled(page);
      const file = path.join(OUT, `console-${name}.png`);
      await page.screenshot({ path: file });
      console.log(`  ${path.relative(projectRoot(), file)}`);
    }
  } finally {
    await browser.close();
    await demo.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
