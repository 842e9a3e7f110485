/** GET /v1/auth/sso/status: public, a boolean only, true exactly when SSO sign-in can start. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startOidcIdp, type OidcIdp } from '../helpers/oidc-idp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PUBLIC_URL = 'http://gw.test';

for (const engine of storeEngines()) {
  describe(`SSO status (${engine.name})`, () => {
    let app: TestApp;
    let idp: OidcIdp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const status = (organisation?: string) => app.http.get('/v1/auth/sso/status').query(organisation ? { organisation } : {});

    before(async () => {
      idp = await startOidcIdp([`${PUBLIC_URL}/v1/auth/sso/callback`]);
      app = await startTestApp({ engine, env: { GW_PUBLIC_URL: PUBLIC_URL, TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await app.close();
      await idp.close();
    });

    test('without SSO settings: enabled false, with no credential needed', async () => {
      const answer = await status();
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { enabled: false });
      assert.equal(answer.headers['cache-control'], 'no-store');
    });

    test('with SSO set: enabled true and nothing else; off again when disabled or removed', async () => {
      const saved = await app.http.put('/v1/admin/organisation/sso').set(admin()).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));

      const on = await status();
      assert.deepEqual(on.body, { enabled: true });
      const text = JSON.stringify(on.body);
      for (const secret of [idp.issuer, idp.clientId, app.boot.organisationId]) assert.ok(!text.includes(secret), `the answer does not reveal ${secret}`);
      assert.deepEqual((await status('default')).body, { enabled: true }, 'by slug, as the sign-in link takes it');
      assert.deepEqual((await status('no-such-organisation')).body, { enabled: false }, 'an unknown organisation looks like one without SSO');

      await app.http.put('/v1/admin/organisation/sso').set(admin()).send({ enabled: false, issuer: idp.issuer, client_id: idp.clientId });
      assert.deepEqual((await status()).body, { enabled: false });
      await app.http.put('/v1/admin/organisation/sso').set(admin()).send({ enabled: true, issuer: idp.issuer, client_id: idp.clientId });
      assert.deepEqual((await status()).body, { enabled: true });
      assert.equal((await app.http.delete('/v1/admin/organisation/sso').set(admin())).status, 200);
      assert.deepEqual((await status()).body, { enabled: false });
    });

    test('an over-long organisation is refused by the spec', async () => {
      const answer = await status('x'.repeat(300));
      assert.equal(answer.status, 400);
    });
  });
}
