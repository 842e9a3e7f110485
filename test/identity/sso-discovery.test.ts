/**
 * The identity provider's discovery: checked when SSO settings are saved (502 naming the cause, or
 * the outbound guard's 400), kept between anonymous sign-in calls (one fetch for many calls, a
 * failure kept briefly too), and a failure at sign-in answered 502 naming the cause, never 500.
 * The identity provider is a loopback server whose discovery answers openid-client reads, counting
 * every fetch of its discovery document.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Mode = 'ok' | 'http-500' | 'wrong-issuer';

interface DiscoveryServer {
  issuer: string;
  mode: Mode;
  fetches: number;
  close(): Promise<void>;
}

async function startDiscoveryServer(): Promise<DiscoveryServer> {
  const state = { mode: 'ok' as Mode, fetches: 0 };
  const server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/openid-configuration') {
      res.statusCode = 404;
      res.end();
      return;
    }
    state.fetches++;
    if (state.mode === 'http-500') {
      res.statusCode = 500;
      res.end('down for maintenance');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        issuer: state.mode === 'wrong-issuer' ? 'https://someone-else.example' : issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    issuer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as DiscoveryServer;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const engine of storeEngines()) {
  describe(`SSO discovery: checked at save, cached, 502 at sign-in (${engine.name})`, () => {
    let app: TestApp;
    let idp: DiscoveryServer;
    let clock = Date.now();
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const save = (issuer: string, extra: Record<string, unknown> = {}) => app.http.put('/v1/admin/organisation/sso').set(admin()).send({ issuer, client_id: 'gw', ...extra });
    const signIn = () => app.http.get('/v1/auth/sso/login');

    before(async () => {
      idp = await startDiscoveryServer();
      app = await startTestApp({ engine, now: () => clock, env: { GW_PUBLIC_URL: 'http://gw.test', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await app.close();
      await idp.close();
    });

    test('settings whose issuer cannot be discovered are refused with the cause, and nothing is stored', async () => {
      idp.mode = 'http-500';
      const down = await save(idp.issuer);
      assert.equal(down.status, 502, JSON.stringify(down.body));
      assert.deepEqual([down.body.error.code, down.body.error.param, down.body.error.type], ['identity_provider_unavailable', 'issuer', 'upstream_error']);
      assert.match(down.body.error.message, new RegExp(`${idp.issuer}.*HTTP 500`));

      idp.mode = 'wrong-issuer';
      const wrong = await save(idp.issuer);
      assert.equal(wrong.status, 502);
      assert.match(wrong.body.error.message, /issuer.*someone-else\.example/);

      const port = await closedPort();
      const unreachable = await save(`http://127.0.0.1:${port}`);
      assert.equal(unreachable.status, 502);
      assert.match(unreachable.body.error.message, /ECONNREFUSED/);

      // Not trusted (only 127.0.0.1 is): the outbound guard's 400, before any fetch.
      const untrusted = await save('http://127.0.0.2:8080');
      assert.deepEqual([untrusted.status, untrusted.body.error.code, untrusted.body.error.param], [400, 'unsafe_identity_url', 'issuer']);

      assert.equal((await app.http.get('/v1/admin/organisation/sso').set(admin())).status, 404);
      // Disabled settings may be prepared before the identity provider is up.
      assert.equal((await save(idp.issuer, { enabled: false })).status, 200);
      assert.equal((await signIn()).status, 404);
    });

    test('anonymous sign-in calls share one discovery; an identity provider gone down answers 502 naming the cause, fetched again only after a while', async () => {
      idp.mode = 'ok';
      const saved = await save(idp.issuer);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));

      const before = idp.fetches;
      for (let i = 0; i < 5; i++) {
        const start = await signIn();
        assert.equal(start.status, 302, JSON.stringify(start.body));
        assert.ok(start.headers.location!.startsWith(`${idp.issuer}/authorize?`));
      }
      assert.equal(idp.fetches - before, 1, 'five sign-ins, one discovery fetch');

      // The identity provider goes down; the configuration discovered is used until it is old.
      idp.mode = 'http-500';
      assert.equal((await signIn()).status, 302);
      clock += 11 * 60_000;
      const failedAt = idp.fetches;
      for (let i = 0; i < 5; i++) {
        const start = await signIn();
        assert.equal(start.status, 502, JSON.stringify(start.body));
        assert.deepEqual([start.body.error.code, start.body.error.type], ['identity_provider_unavailable', 'upstream_error']);
        assert.match(start.body.error.message, /HTTP 500/);
      }
      assert.equal(idp.fetches - failedAt, 1, 'a failure is kept too');

      idp.mode = 'ok';
      assert.equal((await signIn()).status, 502, 'still the kept failure');
      clock += 31_000;
      assert.equal((await signIn()).status, 302);
      assert.equal(idp.fetches - failedAt, 2);
    });
  });
}
