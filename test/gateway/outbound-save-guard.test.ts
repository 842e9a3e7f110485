/**
 * One outbound address guard, the same answer at save and at connect: every place a user saves a
 * URL gw will call (guardrail webhooks, secret managers, MCP servers and their OAuth token_url,
 * the SSO issuer, A2A agents, providers' custom hosts and token endpoints, saved configs' custom hosts at any depth) refuses the untrusted loopback forms and names that resolve to
 * private, loopback or metadata addresses (a stubbed resolver; no real DNS, no connection), with
 * the code the connection itself answers for the same URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../core/errors.js';
import { vetCustomHost } from '../../gateway/resolve/custom-host-vetting.js';
import { storeEngines } from '../helpers/engines.js';
import { PUBLIC_TEST_ADDRESS, stubResolver } from '../helpers/stub-resolver.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const resolveHost = stubResolver({
  'loopback.example': ['127.0.0.2'],
  'private.example': ['10.0.0.7'],
  'mixed.example': [PUBLIC_TEST_ADDRESS, '192.168.1.9'],
  'metadata.example': ['169.254.169.254'],
  'v6-loopback.example': ['::1'],
  'public.example': [PUBLIC_TEST_ADDRESS],
});

/** Untrusted loopback forms (only 127.0.0.1 is trusted here) and names resolving to non-public addresses. */
const REFUSED = [
  'http://127.0.0.2:8080/x',
  'http://2130706434/x',
  'http://0x7f000002/x',
  'http://[::1]:8080/x',
  'http://localhost:8080/x',
  'http://loopback.example/x',
  'https://private.example/x',
  'https://mixed.example/x',
  'http://metadata.example/x',
  'https://v6-loopback.example/x',
];

interface Surface {
  name: string;
  code: string;
  param: string;
  save(app: TestApp, url: string): Promise<{ status: number; body: { error?: { code: string; param: string | null } } }>;
  /** What gw does with the URL when it calls it, with the same guard (custom hosts: the hot path's check). */
  connect?(app: TestApp, url: string): Promise<unknown>;
}

const admin = (app: TestApp) => ({ 'x-gw-api-key': app.adminKey });

const hotPathCustomHost = (app: TestApp, url: string) => vetCustomHost(url, app.services.outbound, { param: 'custom_host', source: 'the custom_host' });

/** A fallback config with a public first target and the URL in a nested target's custom_host. */
const nestedConfig = (url: string) => ({
  strategy: { mode: 'fallback' },
  targets: [
    { provider: 'openai', api_key: 'sk-a', custom_host: 'https://public.example/v1' },
    { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', api_key: 'sk-b', custom_host: url }] },
  ],
});

const SURFACES: Surface[] = [
  {
    name: 'guardrail webhook',
    code: 'guardrail_url_refused',
    param: 'checks[0].parameters.webhookURL',
    save: (app, url) => app.http.post('/v1/guardrails').set(admin(app)).send({ name: 'hook', checks: [{ id: 'default.webhook', parameters: { webhookURL: url } }] }),
    connect: (app, url) => app.services.guardrailOutbound.fetch(url, { method: 'POST' }),
  },
  {
    name: 'secret manager',
    code: 'secret_manager_refused',
    param: 'auth_config.vault_addr',
    save: (app, url) =>
      app.http.post('/v1/secret-references').set(admin(app)).send({ name: 'vault', manager_type: 'hashicorp_vault', auth_config: { vault_addr: url, vault_token: 't' }, secret_path: 'secret/x' }),
    connect: (app, url) => app.services.outbound.fetch('secret_manager_refused')(url),
  },
  {
    name: 'MCP server',
    code: 'unsafe_mcp_url',
    param: 'url',
    save: (app, url) => app.http.post('/v1/mcp-integrations').set(admin(app)).send({ name: 'mcp', url, transport: 'http', auth_type: 'none' }),
    connect: (app, url) => app.services.outbound.fetch('unsafe_mcp_url')(url),
  },
  {
    name: 'MCP OAuth token_url',
    code: 'unsafe_mcp_url',
    param: 'configurations.token_url',
    save: (app, url) =>
      app.http
        .post('/v1/mcp-integrations')
        .set(admin(app))
        .send({ name: 'mcp oauth', url: 'https://public.example/mcp', transport: 'http', auth_type: 'oauth_client_credentials', configurations: { client_id: 'c', client_secret: 's', token_url: url } }),
    connect: (app, url) => app.services.outbound.fetch('unsafe_mcp_url')(url, { method: 'POST' }),
  },
  {
    name: 'SSO issuer',
    code: 'unsafe_identity_url',
    param: 'issuer',
    save: (app, url) => app.http.put('/v1/admin/organisation/sso').set(admin(app)).send({ issuer: url, client_id: 'gw' }),
    connect: (app, url) => app.services.identityFetch(url),
  },
  {
    name: 'provider custom_host',
    code: 'custom_host_refused',
    param: 'configurations.custom_host',
    save: (app, url) => app.http.post('/v1/providers').set(admin(app)).send({ name: 'custom', ai_provider_id: 'openai', key: 'sk-x', configurations: { custom_host: url } }),
    connect: hotPathCustomHost,
  },
  {
    name: 'config target custom_host',
    code: 'custom_host_refused',
    param: 'config.targets[0].custom_host',
    save: (app, url) => app.http.post('/v1/configs').set(admin(app)).send({ name: 'custom host', config: { strategy: { mode: 'single' }, provider: 'openai', targets: [{ api_key: 'sk-x', custom_host: url }] } }),
    connect: hotPathCustomHost,
  },
  {
    name: 'nested config target custom_host',
    code: 'custom_host_refused',
    param: 'config.targets[1].targets[0].custom_host',
    save: (app, url) => app.http.post('/v1/configs').set(admin(app)).send({ name: 'nested custom host', config: nestedConfig(url) }),
  },
  {
    name: 'config update custom_host',
    code: 'custom_host_refused',
    param: 'config.targets[1].targets[0].custom_host',
    save: async (app, url) => {
      const saved = await app.http.post('/v1/configs').set(admin(app)).send({ name: 'to update', config: nestedConfig('https://public.example/v1') });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      return app.http.put(`/v1/configs/${saved.body.id}`).set(admin(app)).send({ config: nestedConfig(url) });
    },
  },
  {
    name: 'config semantic cache embedding custom_host',
    code: 'custom_host_refused',
    param: 'config.cache.embedding.custom_host',
    save: (app, url) =>
      app.http
        .post('/v1/configs')
        .set(admin(app))
        .send({ name: 'semantic', config: { provider: 'openai', api_key: 'sk-x', cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'text-embedding-3-small', custom_host: url } } } }),
  },
  {
    name: 'integration OAuth token endpoint',
    code: 'provider_credential_refused',
    param: 'configurations.oauth_token_endpoint',
    save: (app, url) =>
      app.http
        .post('/v1/integrations')
        .set(admin(app))
        .send({ name: 'oauth', ai_provider_id: 'openai', auth_type: 'oauthClientCredentials', configurations: { oauth_token_endpoint: url, oauth_client_id: 'c', oauth_client_secret: 's' } }),
    connect: (app, url) => app.services.outbound.fetch('provider_credential_refused')(url, { method: 'POST' }),
  },
  {
    name: 'A2A agent',
    code: 'agent_card_url_refused',
    param: 'url',
    save: (app, url) => app.http.post('/v2/agent-integrations').set(admin(app)).send({ name: 'agent', url }),
    connect: (app, url) => app.services.agentCards.fetchCard(url, {}),
  },
];

for (const engine of storeEngines()) {
  describe(`one outbound guard at save and at connect (${engine.name})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, resolveHost });
    });
    after(() => app.close());

    for (const surface of SURFACES) {
      test(`${surface.name}: refused at save with the code its connection answers`, async () => {
        for (const url of REFUSED) {
          const saved = await surface.save(app, url);
          assert.equal(saved.status, 400, `${url}: ${JSON.stringify(saved.body)}`);
          assert.deepEqual([saved.body.error?.code, saved.body.error?.param], [surface.code, surface.param], url);
          if (!surface.connect) continue;

          const connected = await surface.connect(app, url).then(
            () => assert.fail(`${url} was fetched`),
            (error: unknown) => error,
          );
          assert.ok(connected instanceof ApiError, `${url}: ${String(connected)}`);
          assert.deepEqual([connected.status, connected.code], [400, surface.code], url);
        }
      });
    }

    test('a name that resolves to public addresses only is saved (and not called)', async () => {
      const saved = await app.http.post('/v1/guardrails').set(admin(app)).send({ name: 'public hook', checks: [{ id: 'default.webhook', parameters: { webhookURL: 'https://public.example/hook' } }] });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const agent = await app.http.post('/v2/agent-integrations').set(admin(app)).send({ name: 'public agent', url: 'https://public.example/a2a' });
      assert.equal(agent.status, 201, JSON.stringify(agent.body));
    });

    test('a config whose custom hosts are public or trusted (127.0.0.1 here) is saved', async () => {
      const saved = await app.http.post('/v1/configs').set(admin(app)).send({ name: 'trusted loopback', config: nestedConfig('http://127.0.0.1:9/v1') });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    });

    test('a config custom host whose name does not resolve is refused at save with the 502 the call answers', async () => {
      const url = 'https://unknown-name.example/v1';
      const saved = await app.http.post('/v1/configs').set(admin(app)).send({ name: 'unresolved', config: nestedConfig(url) });
      assert.equal(saved.status, 502, JSON.stringify(saved.body));
      assert.deepEqual([saved.body.error.code, saved.body.error.param], ['outbound_host_unresolved', 'config.targets[1].targets[0].custom_host']);
      const connected = await hotPathCustomHost(app, url).then(
        () => assert.fail(`${url} was accepted`),
        (error: unknown) => error,
      );
      assert.ok(connected instanceof ApiError);
      assert.deepEqual([connected.status, connected.code], [502, 'outbound_host_unresolved']);
    });
  });
}
