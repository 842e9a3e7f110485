/**
 * Headless Debian Chromium for the console's browser tests, driven by playwright-core from web/
 * (never a downloaded browser). A fresh profile each time; nothing reaches past loopback.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { projectRoot } from '../../core/project-root.js';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where the tests leave a screenshot of each page (listed in .gitignore). */
export const SCREENSHOTS = path.join(projectRoot(), 'test-output', 'screenshots');

/** Throws a clear message when something the browser tests need is missing. */
export function assertConsoleTestable(): void {
  const root = projectRoot();
  if (!existsSync(path.join(root, 'web', 'dist', 'index.html'))) throw new Error('web/dist is missing: build the console first (make build, or npm run build in web/)');
  if (!existsSync(path.join(root, 'web', 'node_modules', 'playwright-core'))) throw new Error("web/node_modules is missing: install the console's packages (make build runs npm ci in web/)");
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
}

export interface Browser {
  context: BrowserContext;
  newPage(width?: number, height?: number): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  // By path: tsx would map the bare name to the types (tsconfig paths), not the package.
  const require = createRequire(path.join(projectRoot(), 'web', 'package.json'));
  const { chromium } = require('./node_modules/playwright-core') as typeof import('playwright-core');
  const profile = mkdtempSync(path.join(tmpdir(), 'gw-chromium-'));
  mkdirSync(SCREENSHOTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1360, height: 900 } });
  return {
    context,
    async newPage(width = 1360, height = 900) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * axe-core's serious and critical violations on the page as it is now, one line each (rule,
 * impact, the first offending elements). Evaluated through the debugging protocol, which the
 * console's CSP (no inline script) does not block, so the page's own policy stays in force.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const source = readFileSync(path.join(projectRoot(), 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.evaluate(`${source}\n;undefined`);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`)) as Array<{ id: string; impact: string | null; nodes: string[] }>;
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.join(', ')}`);
}

/** Is the page no wider than its window (wide tables scroll in their own box)? */
export async function fitsWindow(page: Page): Promise<boolean> {
  return (await page.evaluate(`document.documentElement.scrollWidth <= window.innerWidth + 1`)) as boolean;
}
