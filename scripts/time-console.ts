/**
 * Time to interactive of the console's data pages over 100,000 log rows (`make bench-console`):
 * a gw in this process seeded as the browser test does (test/console/console-demo.ts), Debian's
 * Chromium, and for each page the time from navigation to its data on screen with the main
 * thread free again (a frame and a task later). Fresh loads (the bundle fetched and parsed
 * again) and moves inside the console; the median of RUNS each, with the load average.
 *
 *   node --import tsx scripts/time-console.ts [rows]
 */
import { loadavg } from 'node:os';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser } from '../test/console/browser.js';
import { drawn, startConsoleDemo } from '../test/console/console-demo.js';

const RUNS = 5;

/** Waits for `ready`, then a frame and a task: the page has drawn it and can take input. */
async function until(page: Page, ready: Locator): Promise<void> {
  await ready.first().waitFor();
  await drawn(page);
}

async function timed(action: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 100_000);
  console.log(`seeding ${rows.toLocaleString('en')} log rows (SQLite in memory)...`);
  const demo = await startConsoleDemo({ rows });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage(1280, 800);
    await demo.signIn(page);
    const base = `${demo.gw.app.url}/console`;
    const newest = await demo.gw.app.http.get('/v1/logs').set({ 'x-gw-api-key': demo.gw.app.adminKey }).query({ limit: 1 });
    const logId = newest.body.data[0].id as string;
    const nav = (name: string) => page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name, exact: true }).click();
    const logsReady = () => until(page, page.getByText(/100 requests shown/));
    const analyticsReady = () => until(page, page.getByRole('table', { name: 'Top api keys' }).getByRole('link')).then(() => until(page, page.locator('[data-testid="chart-requests"]:not([data-points="0"]) canvas')));

    const cases: Array<[string, () => Promise<void>]> = [
      ['Logs, fresh load (last 24 h)', async () => { await page.goto(`${base}/logs`); await logsReady(); }],
      ['Log detail, fresh load', async () => { await page.goto(`${base}/logs/${logId}`); await until(page, page.getByRole('heading', { name: 'Response body' })); }],
      ['Analytics, fresh load (last 24 h)', async () => { await page.goto(`${base}/analytics`); await analyticsReady(); }],
      ['Logs, from the navigation', async () => { await nav('Logs'); await logsReady(); }],
      ['Analytics, from the navigation', async () => { await nav('Analytics'); await analyticsReady(); }],
      [
        'Analytics, range changed to 30 days',
        async () => {
          await page.getByLabel('Time range').selectOption('30d');
          await until(page, page.getByLabel('Totals for the range').getByText((rows + 6).toLocaleString('en')));
          await analyticsReady();
        },
      ],
    ];
    const results: Array<[string, number[]]> = cases.map(([name]) => [name, []]);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, [, action]] of cases.entries()) {
        // Each in-app case starts from another page, so the move is a real one.
        if (i === 3) await nav('Workspaces');
        if (i === 4) await nav('Workspaces');
        results[i]![1].push(await timed(action));
      }
    }
    const load = loadavg().map((n) => n.toFixed(2)).join(', ');
    console.log(`\ntime to interactive over ${rows.toLocaleString('en')} log rows, median of ${RUNS} (load average ${load}):`);
    for (const [name, times] of results) console.log(`  ${name.padEnd(40)} ${median(times).toFixed(0).padStart(6)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
  } finally {
    await browser.close();
    await demo.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
