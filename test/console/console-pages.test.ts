/**
 * The console's pages for the rest of the house, in Debian's Chromium against a gw in this process
 * with fakes on loopback (an OpenAI upstream, an MCP server): the audit log, MCP, agents,
 * assistants and a run's steps, files and batches, deployments, models, secret references, the
 * organisation, users and invitations, SSO and SCIM, each list and a detail; every page passes axe-core with no serious or critical
 * violation, and the main pages fit a 390 px window. Needs web/dist (make build).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { startOidcIdp } from '../helpers/oidc-idp.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { makeTestCertificates } from '../helpers/test-certificates.js';
import { addMcpServer } from '../mcp/mcp-fixtures.js';
import { accessibilityProblems, assertConsoleTestable, fitsWindow, launchBrowser, screenshot, type Browser } from './browser.js';

const PROVIDER = 'fake-openai';

/** Every page of the console, by its navigation link and heading. */
const PAGES: Array<[path: string, link: string, heading: string]> = [
  ['logs', 'Logs', 'Logs'],
  ['analytics', 'Analytics', 'Analytics'],
  ['playground', 'Playground', 'Playground'],
  ['keys', 'API keys', 'API keys'],
  ['providers', 'Providers', 'Providers'],
  ['configs', 'Configs', 'Configs'],
  ['guardrails', 'Guardrails', 'Guardrails'],
  ['policies', 'Policies', 'Policies'],
  ['workspaces', 'Workspaces', 'Workspaces'],
  ['users', 'Users', 'Users'],
  ['prompts', 'Prompts', 'Prompts'],
  ['models', 'Models', 'Models'],
  ['mcp', 'MCP', 'MCP'],
  ['agents', 'Agents', 'Agent integrations'],
  ['assistants', 'Assistants', 'Assistants and threads'],
  ['files', 'Files and batches', 'Files and batches'],
  ['deployments', 'Deployments', 'Deployments'],
  ['secret-references', 'Secret references', 'Secret references'],
  ['audit', 'Audit log', 'Audit log'],
  ['organisation', 'Organisation', 'Organisation'],
  ['identity', 'SSO and SCIM', 'SSO and SCIM'],
];

describe('the console pages for the rest of the house', () => {
  let gw: GatewayApp;
  let mcp: FakeMcpServer;
  let browser: Browser;
  let page: Page;
  const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
  const ids: Record<string, string> = {};

  before(async () => {
    assertConsoleTestable();
    gw = await startGatewayApp({ resolveHost: stubResolver(EXAMPLE_NAMES) });
    mcp = await startFakeMcpServer({ name: 'fake-mcp' });
    const http = gw.app.http;
    const ok = (res: { status: number; body: unknown }, status = 201) => assert.equal(res.status, status, JSON.stringify(res.body));

    ok(await http.post('/v1/providers').set(admin()).send({ name: PROVIDER, ai_provider_id: 'openai', key: 'sk-fake-provider-0000' }));
    ids.server = (await addMcpServer(gw.app, { url: mcp.url, slug: 'tools' })).serverId;
    const agent = await http.post('/v2/agent-integrations').set(admin()).send({ name: 'Travel agent', url: 'https://a.example.com/agent' });
    ok(agent);
    const deployment = await http.post('/v1/deployments').set(admin()).send({ name: 'edge eu' });
    ok(deployment);
    ok(await http.post('/v1/deployments/heartbeat').set({ 'x-gw-api-key': deployment.body.deployment_key }).send({ version: 'v2.23.0', gateway_base_url: 'https://proxy.example.com' }), 200);
    ok(await http.post('/v1/secret-references').set(admin()).send({ name: 'vault openai', slug: 'vault-openai', manager_type: 'hashicorp_vault', auth_config: { vault_addr: 'https://vault.example.com', vault_token: 'hvs.console-test' }, secret_path: 'secret/openai' }));

    // A file, a batch run by gw from it, and an assistant's run with its steps.
    const line = JSON.stringify({ custom_id: 'one', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'batched' }] } });
    const file = await http.post('/v1/files').set(admin()).field('purpose', 'batch').attach('file', Buffer.from(`${line}\n`), 'questions.jsonl');
    ok(file, 200);
    const batch = await http.post('/v1/batches').set({ ...admin(), 'x-gw-provider': `@${PROVIDER}` }).send({ input_file_id: file.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    ok(batch, 200);
    ids.batch = batch.body.id;
    const assistant = await http.post('/v1/assistants').set(admin()).send({ model: 'gpt-4o-mini', name: 'Helper', instructions: 'Answer briefly.' });
    ok(assistant, 200);
    const thread = await http.post('/v1/threads').set(admin()).send({ messages: [{ role: 'user', content: 'What is gw?' }] });
    ok(thread, 200);
    ids.thread = thread.body.id;
    const run = await http.post(`/v1/threads/${ids.thread}/runs`).set({ ...admin(), 'x-gw-provider': `@${PROVIDER}` }).send({ assistant_id: assistant.body.id });
    ok(run, 200);
    ids.run = run.body.id;
    for (let status = run.body.status; ['queued', 'in_progress'].includes(status); ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await http.get(`/v1/threads/${ids.thread}/runs/${ids.run}`).set(admin())).body.status;
    }
    for (let status = batch.body.status; !['completed', 'failed', 'expired', 'cancelled'].includes(status); ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await http.get(`/v1/batches/${ids.batch}`).set(admin())).body.status;
    }
    await gw.app.services.requestLogs.flush();

    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await mcp?.close();
  });

  async function signIn(target: Page): Promise<void> {
    await target.goto(`${gw.app.url}/console/`);
    await target.getByLabel('API key').fill(gw.app.adminKey);
    await target.getByRole('button', { name: 'Sign in', exact: true }).click();
    await target.getByRole('navigation', { name: 'Console pages' }).waitFor();
  }

  async function open(link: string, heading: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  }

  async function quietAndAccessible(name: string): Promise<void> {
    await page.locator('[role="status"].loading').first().waitFor({ state: 'detached' });
    assert.deepEqual(await accessibilityProblems(page), [], `${name}: no serious or critical axe violation`);
    await screenshot(page, name);
  }

  test('every page is in the navigation of an admin key, passes axe-core, and loads quietly (no failed call, nothing in the browser console)', async () => {
    const noise: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') noise.push(message.text());
    });
    page.on('response', (res) => {
      if (res.status() >= 400) noise.push(`${res.status()} ${res.url()}`);
    });
    await signIn(page);
    const links = await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link').allInnerTexts();
    assert.deepEqual(links, PAGES.map(([, link]) => link));
    for (const [path, link, heading] of PAGES) {
      await open(link, heading);
      await quietAndAccessible(`page-${path}`);
    }
    await page.goto(`${gw.app.url}/console/`);
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    assert.deepEqual(await accessibilityProblems(page), [], 'the landing page');
    assert.deepEqual(noise, []);
    page.removeAllListeners('console');
    page.removeAllListeners('response');
  });

  test('audit log: the writes above are listed, a filter narrows them, and an entry opens with its request', async () => {
    await open('Audit log', 'Audit log');
    const table = page.getByRole('table', { name: 'Audit log entries' });
    await table.waitFor();
    assert.ok((await table.getByRole('row').count()) > 5);
    const all = await gw.app.http.get('/v1/audit-logs').set(admin()).query({ limit: 100 });
    const type = (all.body.data as Array<{ path: string; resource_type: string }>).find((e) => e.path === '/v1/deployments')!.resource_type;
    const listed = await gw.app.http.get('/v1/audit-logs').set(admin()).query({ resource_type: type });
    const action = listed.body.data[0].action as string;
    await page.getByLabel('Resource type').fill(type);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await table.getByRole('row').nth(listed.body.data.length + 1).waitFor({ state: 'detached' });
    assert.equal(await table.getByRole('row').count(), listed.body.data.length + 1, 'a header and the filtered rows');
    await table.getByRole('button', { name: new RegExp(`^Details of ${action}`) }).first().click();
    const entry = page.getByRole('region', { name: action });
    await entry.waitFor();
    assert.match(await entry.innerText(), /\/v1\/deployments/);
    await quietAndAccessible('audit-entry');
  });

  test('MCP: the server lists its tools, its gateway URL is there to copy, and a connection test passes', async () => {
    await open('MCP', 'MCP');
    await page.getByRole('table', { name: 'MCP servers' }).getByRole('link', { name: 'tools' }).click();
    await page.getByRole('heading', { level: 1, name: 'tools' }).waitFor();
    const url = (await gw.app.http.get(`/v1/mcp-servers/${ids.server}`).set(admin())).body.url as string;
    await page.getByText(url, { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Copy the gateway URL' }).waitFor();
    const tools = page.getByRole('table', { name: 'Capabilities' });
    await tools.waitFor();
    const names = await tools.locator('tbody td.mono').allInnerTexts();
    assert.ok(names.length >= 2, names.join());
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText(/^Connected in/).waitFor();
    await quietAndAccessible('mcp-server');
  });

  test('assistants: a thread opened by id shows its messages and run, and the run its steps', async () => {
    await open('Assistants', 'Assistants and threads');
    await page.getByRole('table', { name: 'Assistants' }).getByRole('link', { name: 'Helper' }).waitFor();
    await page.getByLabel('Thread id').fill(ids.thread!);
    await page.getByRole('button', { name: 'Open thread' }).click();
    await page.getByRole('table', { name: 'Messages' }).getByText('What is gw?', { exact: true }).waitFor();
    await page.getByRole('table', { name: 'Runs' }).getByRole('link', { name: ids.run }).click();
    await page.getByRole('heading', { level: 1, name: `Run ${ids.run}` }).waitFor();
    const steps = page.getByRole('table', { name: 'Run steps' });
    await steps.waitFor();
    assert.match(await steps.innerText(), /message_creation/);
    await quietAndAccessible('run-steps');
  });

  test('files and batches: the batch shows its progress and its output downloads', async () => {
    await open('Files and batches', 'Files and batches');
    const batches = page.getByRole('table', { name: 'Batches' });
    await batches.getByText('1 of 1 (100%)').waitFor();
    const download = page.waitForEvent('download');
    await batches.getByRole('button', { name: `Download the output of ${ids.batch}` }).click();
    const saved = await (await download).path();
    const { readFileSync } = await import('node:fs');
    assert.match(readFileSync(saved, 'utf8'), /"custom_id":"one"/);
    await page.getByRole('table', { name: 'Files' }).getByRole('link', { name: 'questions.jsonl' }).click();
    await page.getByRole('heading', { level: 1, name: 'questions.jsonl' }).waitFor();
    await quietAndAccessible('file-detail');
  });

  test('deployments, agents, secret references: lists with status and a detail each', async () => {
    await open('Deployments', 'Deployments');
    const row = page.getByRole('table', { name: 'Deployments' }).getByRole('row').filter({ hasText: 'edge eu' });
    assert.match(await row.innerText(), /2\.23\.0/);
    await row.getByRole('link', { name: 'edge eu' }).click();
    await page.getByRole('heading', { level: 1, name: 'edge eu' }).waitFor();
    assert.match(await page.getByLabel('Summary').innerText(), /https:\/\/proxy\.example\.com/);

    await open('Agents', 'Agent integrations');
    await page.getByRole('table', { name: 'Agent integrations' }).getByRole('link', { name: 'Travel agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'Travel agent' }).waitFor();
    // A client certificate saved from the form: the key never comes back, only its mask.
    const certs = makeTestCertificates();
    const keyLine = certs.clientKey.split('\n')[2]!;
    const tls = page.getByRole('form', { name: 'Client certificate' });
    await tls.getByLabel('Certificate (PEM)').fill(certs.clientCert);
    await tls.getByLabel('Private key (PEM)').fill(certs.clientKey);
    await tls.getByLabel('CA bundle (PEM)').fill(certs.ca);
    await tls.getByRole('button', { name: 'Save client certificate' }).click();
    await page.getByRole('status').filter({ hasText: 'Client certificate saved' }).waitFor();
    assert.equal(await tls.getByLabel('Private key (PEM)').inputValue(), '');
    assert.match(await page.locator('main').innerText(), /its private key is stored as/);
    assert.ok(!(await page.locator('main').innerText()).includes(keyLine), 'the private key is never in the page');
    await quietAndAccessible('agent-client-tls');

    await open('Secret references', 'Secret references');
    await page.getByRole('table', { name: 'Secret references' }).getByRole('link', { name: 'vault openai' }).click();
    await page.getByRole('heading', { level: 1, name: 'vault openai' }).waitFor();
    const shown = await page.locator('main').innerText();
    assert.match(shown, /secret\/openai/);
    assert.doesNotMatch(shown, /hvs\.console-test/, 'the vault token is never in the page');
    await quietAndAccessible('secret-reference');
  });

  test('models: the catalog with what each model cost, a model called without a price flagged', async () => {
    // A model the price catalog does not know, called through the fake upstream: its cost is not counted.
    const unknown = await gw.app.http
      .post('/v1/chat/completions')
      .set({ ...admin(), 'x-gw-provider': `@${PROVIDER}` })
      .send({ model: 'house-model-x', messages: [{ role: 'user', content: 'priced?' }] });
    assert.equal(unknown.status, 200, JSON.stringify(unknown.body));
    await gw.app.services.requestLogs.flush();
    await open('Organisation', 'Organisation');
    await open('Models', 'Models');
    const table = page.getByRole('table', { name: 'Model catalog' });
    await table.waitFor();
    const row = table.getByRole('row').filter({ hasText: 'house-model-x' });
    assert.match(await row.innerText(), /unpriced/);
    // The saved provider's models (`@fake-openai/gpt-4o-mini`) are the names the calls were logged under.
    const priced = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'gpt-4o-mini', exact: true }) });
    assert.match(await priced.innerText(), /@fake-openai/);
    assert.match(await priced.innerText(), /\$[0-9.]+\s+yes$/);
    await page.getByText(/called without a price/).waitFor();
    await quietAndAccessible('models');
  });

  test('keyboard only: a key is created from the keys page without the mouse, its secret region takes the focus', async () => {
    await open('API keys', 'API keys');
    const focused = () => page.evaluate(`(() => { const el = document.activeElement; return el ? (el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 60) : '' })()`) as Promise<string>;
    // Moving to a page puts the focus on its heading; the first control after it is New key.
    assert.equal(await focused(), 'API keys');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'New key');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New key' }).waitFor();
    assert.equal(await focused(), 'New key', 'the form title takes the focus');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-secret').waitFor();
    assert.equal(await focused(), 'Secret of keyboard key');
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    assert.deepEqual((await gw.app.http.get('/v1/auth/key').set('x-gw-api-key', secret)).body.scopes, ['completions.write'], 'the default preset: gateway calls only');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'I have copied it');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-secret').waitFor({ state: 'detached' });
  });

  test('users: an invitation sent from the page is listed; a role changed on the page is read in the audit log', async () => {
    const http = gw.app.http;
    const invited = await http.post('/v1/admin/users/invites').set(admin()).send({ email: 'carol@example.test', role: 'member' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const carol = await http.post('/v1/admin/users/invites/accept').send({ token: invited.body.token, first_name: 'Carol' });
    assert.equal(carol.status, 201, JSON.stringify(carol.body));

    await open('Users', 'Users');
    await page.getByRole('button', { name: 'Invite someone' }).click();
    await page.getByLabel('Email').fill('dana@example.test');
    await page.getByLabel('Organisation role').selectOption('admin');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const token = (await page.getByTestId('new-secret').innerText()).trim();
    const listed = await http.get('/v1/admin/users/invites').set(admin());
    const dana = (listed.body.data as Array<{ id: string; email: string; status: string }>).find((i) => i.email === 'dana@example.test');
    assert.equal(dana?.status, 'pending');
    assert.ok(token.length > 10 && !JSON.stringify(listed.body).includes(token), 'the token is shown once, never listed');
    const invitations = page.getByRole('table', { name: 'Invitations' });
    await invitations.getByRole('row').filter({ hasText: 'dana@example.test' }).filter({ hasText: 'pending' }).waitFor();

    const changed = page.waitForResponse((res) => res.request().method() === 'PUT' && new URL(res.url()).pathname === `/v1/admin/users/${carol.body.id}`);
    await page.getByLabel('Role of carol@example.test').selectOption('admin');
    assert.equal((await changed).status(), 200);
    assert.equal((await http.get(`/v1/admin/users/${carol.body.id}`).set(admin())).body.role, 'admin');
    await open('Audit log', 'Audit log');
    await page.getByLabel('Action', { exact: true }).fill('updateUser');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const table = page.getByRole('table', { name: 'Audit log entries' });
    await table.getByRole('button', { name: /^Details of updateUser/ }).first().click();
    const entry = page.getByRole('region', { name: 'updateUser' });
    await entry.waitFor();
    const text = await entry.innerText();
    assert.ok(text.includes(`/v1/admin/users/${carol.body.id}`), text);
    assert.match(text, /"role": "admin"/);
    await quietAndAccessible('users-audit');
  });

  test('SSO and SCIM: a SCIM token is created and its secret shown once; a mapping is saved', async () => {
    await open('SSO and SCIM', 'SSO and SCIM');
    await page.getByText('SSO sign-in is off.').waitFor();
    await page.getByRole('button', { name: 'New SCIM token' }).click();
    await page.getByLabel('Token name').fill('okta');
    await page.getByRole('button', { name: 'Create SCIM token' }).click();
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    const scim = await gw.app.http.get('/v1/scim/v2/Users').set('authorization', `Bearer ${secret}`);
    assert.equal(scim.status, 200, 'the secret shown is the SCIM bearer token');
    await quietAndAccessible('identity-scim-token');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-secret').waitFor({ state: 'detached' });
    const tokens = page.getByRole('table', { name: 'SCIM tokens' });
    await tokens.getByRole('row').filter({ hasText: 'okta' }).waitFor();
    assert.ok(!(await page.content()).includes(secret), 'gone from the page once copied; the list shows it masked');

    await page.getByRole('button', { name: 'Map a group' }).click();
    await page.getByLabel('Group name').fill('engineers');
    await page.getByLabel('Workspace', { exact: true }).selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByRole('table', { name: 'SCIM mappings' }).getByRole('row').filter({ hasText: 'engineers' }).waitFor();
    const mappings = await gw.app.http.get('/v1/scim/workspaces').set(admin());
    assert.equal(mappings.body.mappings[0].scim_group, 'engineers');
  });

  test('SSO sign-in is offered only when SSO is on: absent on this gw, present once it is set, gone when removed', async () => {
    const idp = await startOidcIdp([`${gw.app.url}/v1/auth/sso/callback`]);
    const tab = await browser.newPage();
    const sso = () => tab.getByRole('link', { name: 'Sign in with SSO' });
    const signInPage = async () => {
      const status = tab.waitForResponse((res) => new URL(res.url()).pathname === '/v1/auth/sso/status');
      await tab.goto(`${gw.app.url}/console/`);
      assert.deepEqual(await (await status).json(), await (await fetch(`${gw.app.url}/v1/auth/sso/status`)).json());
      await tab.getByLabel('API key').waitFor();
    };
    try {
      await signInPage();
      assert.equal(await sso().count(), 0, 'no SSO set: no button');
      const saved = await gw.app.http.put('/v1/admin/organisation/sso').set(admin()).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      await signInPage();
      await sso().waitFor();

      await open('Users', 'Users'); // away and back: the page asks again
      await open('SSO and SCIM', 'SSO and SCIM');
      await page.getByText('SSO sign-in is on', { exact: false }).waitFor();
      await page.getByRole('term').filter({ hasText: 'Redirect URL to register' }).waitFor();
      assert.equal(await page.getByLabel('Client secret').inputValue(), '', 'the secret box starts empty');
      assert.ok(!(await page.content()).includes(idp.clientSecret), 'the client secret never reaches the page');
      await page.getByRole('button', { name: 'Delete the SSO settings' }).click();
      await page.getByRole('button', { name: 'Confirm deleting the SSO settings' }).click();
      await page.getByText('SSO sign-in is off.').waitFor();
      await signInPage();
      assert.equal(await sso().count(), 0, 'removed: no button');
    } finally {
      await tab.close();
      await idp.close();
    }
  });

  test('390 px wide: the main pages fit the window (wide tables scroll in their own box)', async () => {
    const narrow = await browser.newPage(390, 800);
    try {
      await signIn(narrow);
      for (const [path, , heading] of PAGES) {
        await narrow.goto(`${gw.app.url}/console/${path}`);
        await narrow.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        await narrow.locator('[role="status"].loading').first().waitFor({ state: 'detached' });
        assert.ok(await fitsWindow(narrow), `${path} fits 390 px`);
      }
      await narrow.goto(`${gw.app.url}/console/keys`);
      await narrow.getByRole('button', { name: 'New key' }).click();
      await narrow.getByRole('heading', { name: 'New key' }).waitFor();
      assert.ok(await fitsWindow(narrow), 'the new-key form fits 390 px');
      assert.deepEqual(await accessibilityProblems(narrow), [], 'the new-key form passes axe-core');
      await screenshot(narrow, 'keys-new-narrow');
    } finally {
      await narrow.close();
    }
  });
});
