/**
 * A gw in this process with data to look at, for the console's volume test, its timings
 * (scripts/time-console.ts) and its screenshots (scripts/console-screenshots.ts): three named
 * keys, a saved provider on a fake OpenAI upstream, a config, an MCP server, a few real calls
 * (one cached, one failed), and `rows` synthetic log rows of the last 29 days on those keys
 * (scripts/seed-logs.ts), rollups included.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedLogs, type SeededLogs } from '../../scripts/seed-logs.js';
import type { Engine } from '../helpers/engines.js';
import { startFakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { addMcpServer } from '../mcp/mcp-fixtures.js';

const DAY = 86_400_000;
export const DEMO_KEYS = ['checkout service', 'support bot', 'data pipeline'];
export const DEMO_PROVIDER = 'openai-main';

export interface ConsoleDemo {
  gw: GatewayApp;
  /** Key name -> id. */
  keys: Map<string, string>;
  seeded: SeededLogs;
  signIn(page: Page): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleDemo(options: { rows: number; engine?: Engine }): Promise<ConsoleDemo> {
  const gw = await startGatewayApp({ engine: options.engine, resolveHost: stubResolver(EXAMPLE_NAMES) });
  const mcp = await startFakeMcpServer({ name: 'docs-search' });
  const close = async () => {
    await gw.close();
    await mcp.close();
  };
  try {
    const http = gw.app.http;
    const admin = { 'x-gw-api-key': gw.app.adminKey };
    const ok = (res: { status: number; body: unknown }, status = 201) => assert.equal(res.status, status, JSON.stringify(res.body));
    const keys = new Map<string, string>();
    const secrets: string[] = [];
    for (const name of DEMO_KEYS) {
      const created = await http.post('/v1/api-keys/workspace/service').set(admin).send({ name, workspace_id: gw.app.boot.workspaceId, scopes: ['completions.write'] });
      ok(created);
      keys.set(name, created.body.id);
      secrets.push(created.body.key);
    }
    ok(await http.post('/v1/providers').set(admin).send({ name: DEMO_PROVIDER, ai_provider_id: 'openai', key: 'sk-demo-provider-0000' }));
    ok(
      await http
        .post('/v1/configs')
        .set(admin)
        .send({ name: 'resilient chat', config: { strategy: { mode: 'fallback' }, targets: [{ virtual_key: DEMO_PROVIDER }, { virtual_key: DEMO_PROVIDER, override_params: { model: 'gpt-4o-mini' } }], cache: { mode: 'simple', max_age: 300 } } }),
    );
    await addMcpServer(gw.app, { url: mcp.url, slug: 'docs-search' });

    // A few real calls through gw: answers, a cached repeat, one upstream failure.
    const call = (key: string, content: string, headers: Record<string, string> = {}) =>
      http.post('/v1/chat/completions').set({ 'x-gw-api-key': key, 'x-gw-provider': `@${DEMO_PROVIDER}`, ...headers }).send({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
    for (const [i, key] of secrets.entries()) ok(await call(key, `What changed in release ${i + 1}?`, { 'x-gw-metadata': JSON.stringify({ _user: `user-${i}`, env: 'prod' }) }), 200);
    const cached = { 'x-gw-config': JSON.stringify({ virtual_key: DEMO_PROVIDER, cache: { mode: 'simple', max_age: 300 } }) };
    ok(await call(secrets[0]!, 'Summarise the refund policy.', cached), 200);
    ok(await call(secrets[0]!, 'Summarise the refund policy.', cached), 200);
    gw.fake.next({ kind: 'error', status: 500, message: 'the upstream failed' });
    ok(await call(secrets[1]!, 'This one fails upstream.'), 500);
    await gw.app.services.requestLogs.flush();

    const end = Date.now() - 60_000;
    const seeded = await seedLogs(gw.app.services.db, options.rows, {
      organisationId: gw.app.boot.organisationId,
      workspaceIds: [gw.app.boot.workspaceId],
      apiKeyIds: [...keys.values()],
      start: end - 29 * DAY,
      end,
    });
    return {
      gw,
      keys,
      seeded,
      async signIn(page: Page) {
        await page.goto(`${gw.app.url}/console/`);
        await page.getByLabel('API key').fill(gw.app.adminKey);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Resolves once the page has drawn a frame and run a task after it: what is on screen is drawn and input would be handled. */
export async function drawn(page: Page, delayMs = 0): Promise<void> {
  await page.evaluate(`new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, ${delayMs})))`);
}
