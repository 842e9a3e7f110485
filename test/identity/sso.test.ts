/**
 * SSO sign-in through a real OIDC provider on loopback (oidc-provider), sessions and
 * GET /v1/auth/self: provisioning on first sign-in, disable_auto_provision_user, invitations,
 * the session cookie on API routes with CSRF protection, rotation, sign-out and revocation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { newSigningKey, signJwt, startJwksServer, type JwksServer, type SigningKey } from '../helpers/jwks-server.js';
import { followToCallback, startOidcIdp, type IdpAccount, type OidcIdp } from '../helpers/oidc-idp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { cookieIsSecure } from '../../core/auth/session-cookie.js';

const PUBLIC_URL = 'http://gw.test';
const CALLBACK = `${PUBLIC_URL}/v1/auth/sso/callback`;

for (const engine of storeEngines()) {
  describe(`SSO sign-in and sessions (${engine.name})`, () => {
    let app: TestApp;
    let idp: OidcIdp;
    let jwks: JwksServer;
    let jwtKey: SigningKey;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    /** A browser signing in: gw -> identity provider -> gw's callback; answers the callback's response. */
    async function signIn(account: IdpAccount, existingCookie?: string) {
      idp.signInAs(account);
      const start = await app.http.get('/v1/auth/sso/login').query({ return_to: '/console/home' });
      assert.equal(start.status, 302, JSON.stringify(start.body));
      const authorize = new URL(start.headers.location!);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(authorize.searchParams.get('code_challenge'));
      const back = await followToCallback(start.headers.location!, CALLBACK);
      const request = app.http.get(back.pathname + back.search);
      if (existingCookie) request.set('cookie', existingCookie);
      return request;
    }

    const cookieOf = (response: { headers: Record<string, unknown> }) => {
      const header = ([] as string[]).concat((response.headers['set-cookie'] as string[] | string | undefined) ?? [])[0] ?? '';
      return { header, pair: header.split(';')[0]! };
    };

    before(async () => {
      idp = await startOidcIdp([CALLBACK]);
      jwtKey = await newSigningKey('sso-jwt', 'ES256');
      jwks = await startJwksServer([jwtKey]);
      app = await startTestApp({
        engine,
        env: { GW_PUBLIC_URL: PUBLIC_URL, TRUSTED_CUSTOM_HOSTS: '127.0.0.1', JWT_JWKS_URL: jwks.url },
      });
      const saved = await app.http
        .put('/v1/admin/organisation/sso')
        .set(admin())
        .send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, email_domains: ['corp.example'] });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(saved.body.redirect_uri, CALLBACK);
      assert.notEqual(saved.body.client_secret, idp.clientSecret, 'the client secret is masked');
      assert.ok(saved.body.client_secret.endsWith(idp.clientSecret.slice(-4)));
      const stored = await app.services.db('sso_settings').first();
      assert.ok(!JSON.stringify(stored).includes(idp.clientSecret), 'the client secret is encrypted at rest');
    });
    after(async () => {
      await app.close();
      await idp.close();
      await jwks.close();
    });

    test('first sign-in provisions the user, sets an HttpOnly SameSite=Lax cookie and /v1/auth/self answers', async () => {
      const done = await signIn({ sub: 'idp-ada', email: 'ada@corp.example', given_name: 'Ada', family_name: 'L' });
      assert.equal(done.status, 302, JSON.stringify(done.body));
      assert.equal(done.headers.location, '/console/home');
      const { header, pair } = cookieOf(done);
      assert.match(header, /^gw_session=gws_[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);

      const self = await app.http.get('/v1/auth/self').set('cookie', pair);
      assert.equal(self.status, 200, JSON.stringify(self.body));
      assert.equal(self.body.credential, 'session');
      assert.equal(self.body.user.email, 'ada@corp.example');
      assert.equal(self.body.user.first_name, 'Ada');
      assert.deepEqual(self.body.role, { organisation: 'member', workspace: 'member' });
      assert.equal(self.body.organisation.slug, 'default');
      assert.deepEqual(self.body.workspaces.map((w: { slug: string }) => w.slug), ['default']);
      assert.ok(self.body.scopes.includes('workspaces.read'));
      assert.ok(!self.body.scopes.includes('users.create'), "a member's session holds no more than a member may");
      assert.ok(self.body.csrf_token);

      const user = await app.services.store.users.findByEmail(app.boot.organisationId, 'ada@corp.example');
      assert.equal(user?.provisioned_by, 'sso');
      assert.equal(user?.sso_subject, 'idp-ada');
    });

    test('the session cookie works on API routes; writes need the CSRF header', async () => {
      const owner = await signIn({ sub: 'idp-owner', email: 'owner@gw.local' });
      // The bootstrap owner's email is outside the allowed domains: refused.
      assert.equal(owner.status, 403);
      assert.equal(owner.body.error.code, 'email_domain_not_allowed');

      await app.http.put('/v1/admin/organisation/sso').set(admin()).send({ issuer: idp.issuer, client_id: idp.clientId, email_domains: [] });
      const signedIn = await signIn({ sub: 'idp-owner', email: 'owner@gw.local' });
      assert.equal(signedIn.status, 302, JSON.stringify(signedIn.body));
      const { pair } = cookieOf(signedIn);
      const self = await app.http.get('/v1/auth/self').set('cookie', pair);
      assert.equal(self.body.role.organisation, 'owner');
      assert.equal(self.body.workspace_id, null);

      assert.equal((await app.http.get('/v1/workspaces').set('cookie', pair)).status, 200);
      const noCsrf = await app.http.post('/v1/workspaces').set('cookie', pair).send({ name: 'From the console' });
      assert.equal(noCsrf.status, 403);
      assert.equal(noCsrf.body.error.code, 'csrf_token_mismatch');
      const wrongCsrf = await app.http.post('/v1/workspaces').set({ cookie: pair, 'x-gw-csrf-token': 'guess' }).send({ name: 'From the console' });
      assert.equal(wrongCsrf.status, 403);
      const created = await app.http.post('/v1/workspaces').set({ cookie: pair, 'x-gw-csrf-token': self.body.csrf_token }).send({ name: 'From the console' });
      assert.equal(created.status, 201, JSON.stringify(created.body));

      const audit = await app.http.get('/v1/audit-logs').query({ action: 'createWorkspace' }).set(admin());
      const entry = audit.body.data.find((e: { resource_id: string }) => e.resource_id === created.body.id);
      assert.equal(entry.actor.credential, 'session');
      assert.equal(entry.actor.subject, 'owner@gw.local');
    });

    test('signing in again rotates the cookie and revokes the old session; sign-out ends the new one', async () => {
      const account = { sub: 'idp-grace', email: 'grace@corp.example' };
      const first = cookieOf(await signIn(account)).pair;
      assert.equal((await app.http.get('/v1/auth/self').set('cookie', first)).status, 200);
      const second = cookieOf(await signIn(account, first)).pair;
      assert.notEqual(second, first);
      const old = await app.http.get('/v1/auth/self').set('cookie', first);
      assert.equal(old.status, 401);
      assert.equal(old.body.error.code, 'invalid_session');

      const csrf = (await app.http.get('/v1/auth/self').set('cookie', second)).body.csrf_token;
      const out = await app.http.post('/v1/auth/sign-out').set({ cookie: second, 'x-gw-csrf-token': csrf });
      assert.equal(out.status, 200);
      assert.match(cookieOf(out).header, /^gw_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
      assert.equal((await app.http.get('/v1/auth/self').set('cookie', second)).status, 401);
    });

    test('an administrator revokes all of a user\'s sessions', async () => {
      const pair = cookieOf(await signIn({ sub: 'idp-hopper', email: 'hopper@corp.example' })).pair;
      const user = await app.services.store.users.findByEmail(app.boot.organisationId, 'hopper@corp.example');
      const revoked = await app.http.delete(`/v1/admin/users/${user!.id}/sessions`).set(admin());
      assert.deepEqual(revoked.body, { success: true, revoked: 1 });
      assert.equal((await app.http.get('/v1/auth/self').set('cookie', pair)).status, 401);
    });

    test('/v1/auth/self: a JWT is answered, an API key alone is refused', async () => {
      const token = await signJwt(jwtKey, { sub: 'jwt-user', role: 'admin', scope: 'workspaces.list logs.list', exp: Math.floor(Date.now() / 1000) + 300 });
      const self = await app.http.get('/v1/auth/self').set('authorization', `Bearer ${token}`);
      assert.equal(self.status, 200, JSON.stringify(self.body));
      assert.equal(self.body.credential, 'jwt');
      assert.equal(self.body.user.subject, 'jwt-user');
      assert.equal(self.body.user.id, null);
      assert.deepEqual(self.body.scopes, ['logs.list', 'workspaces.list']);
      assert.equal(self.body.csrf_token, undefined);

      const byKey = await app.http.get('/v1/auth/self').set(admin());
      assert.equal(byKey.status, 401);
      assert.equal(byKey.body.error.code, 'session_or_jwt_required');
      assert.equal((await app.http.get('/v1/auth/self').set('authorization', `Bearer ${app.adminKey}`)).status, 401);
      assert.equal((await app.http.get('/v1/auth/self')).status, 401);
    });

    test('disable_auto_provision_user: only invited or provisioned users get in', async () => {
      const settings = await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ disable_auto_provision_user: true });
      assert.equal(settings.status, 200);
      const stranger = await signIn({ sub: 'idp-stranger', email: 'stranger@corp.example' });
      assert.equal(stranger.status, 403);
      assert.equal(stranger.body.error.code, 'user_not_provisioned');
      assert.equal(await app.services.store.users.findByEmail(app.boot.organisationId, 'stranger@corp.example'), undefined);

      const invite = await app.http
        .post('/v1/admin/users/invites')
        .set(admin())
        .send({ email: 'invited@corp.example', role: 'admin', workspaces: [{ workspace_id: 'default', role: 'manager' }] });
      assert.equal(invite.status, 201);
      const invited = await signIn({ sub: 'idp-invited', email: 'invited@corp.example' });
      assert.equal(invited.status, 302, JSON.stringify(invited.body));
      const self = await app.http.get('/v1/auth/self').set('cookie', cookieOf(invited).pair);
      assert.equal(self.body.role.organisation, 'admin');
      assert.equal((await app.http.get(`/v1/admin/users/invites/${invite.body.id}`).set(admin())).body.status, 'accepted');

      // Provisioned ahead of time (as SCIM does): gets in, and is linked to the provider's subject.
      await app.services.store.users.create({ organisation_id: app.boot.organisationId, email: 'scim@corp.example', role: 'member', provisioned_by: 'scim' }, new Date().toISOString());
      assert.equal((await signIn({ sub: 'idp-scim', email: 'scim@corp.example' })).status, 302);
      assert.equal((await app.services.store.users.findByEmail(app.boot.organisationId, 'scim@corp.example'))?.sso_subject, 'idp-scim');
      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ disable_auto_provision_user: false });
    });

    test('a forged or replayed state is refused, and return_to cannot leave gw', async () => {
      const forged = await app.http.get('/v1/auth/sso/callback').query({ code: 'x', state: 'not-a-state' });
      assert.equal(forged.status, 401);
      assert.equal(forged.body.error.code, 'invalid_sign_in_state');
      const offsite = await app.http.get('/v1/auth/sso/login').query({ return_to: '//evil.example/' });
      assert.equal(offsite.status, 400);

      idp.signInAs({ sub: 'idp-replay', email: 'replay@corp.example' });
      const start = await app.http.get('/v1/auth/sso/login');
      const back = await followToCallback(start.headers.location!, CALLBACK);
      assert.equal((await app.http.get(back.pathname + back.search)).status, 302);
      assert.equal((await app.http.get(back.pathname + back.search)).status, 401);
    });
  });
}

describe('the session cookie is a credential on every API route', () => {
  test('every operation that takes an API key takes the session cookie (SCIM, for identity providers, excepted)', async () => {
    const { loadSpec } = await import('../../server/app.js');
    const spec = loadSpec() as { paths: Record<string, Record<string, { operationId?: string; security?: Array<Record<string, unknown>> }>> };
    const missing: string[] = [];
    for (const [path, item] of Object.entries(spec.paths)) {
      if (path.startsWith('/v1/scim/v2/')) continue;
      for (const operation of Object.values(item)) {
        const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
        if ((schemes.includes('gwApiKey') || schemes.includes('bearerAuth')) && !schemes.includes('sessionCookie')) missing.push(operation.operationId ?? path);
      }
    }
    assert.deepEqual(missing, []);
  });
});

describe('the session cookie is Secure when gw is reached over TLS', () => {
  test('an https public URL (TLS ended at a proxy) or a TLS connection makes it Secure, at sign-in and at sign-out', async () => {
    const callback = 'https://gw.test/v1/auth/sso/callback';
    const idp = await startOidcIdp([callback]);
    const app = await startTestApp({ env: { GW_PUBLIC_URL: 'https://gw.test', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    try {
      const saved = await app.http.put('/v1/admin/organisation/sso').set('x-gw-api-key', app.adminKey).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      idp.signInAs({ sub: 'idp-tls', email: 'tls@corp.example' });
      const start = await app.http.get('/v1/auth/sso/login');
      const back = await followToCallback(start.headers.location!, callback);
      const done = await app.http.get(back.pathname + back.search);
      assert.equal(done.status, 302, JSON.stringify(done.body));
      const header = ([] as string[]).concat(done.headers['set-cookie'] ?? [])[0]!;
      assert.match(header, /^gw_session=gws_[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
      const pair = header.split(';')[0]!;
      const csrf = (await app.http.get('/v1/auth/self').set('cookie', pair)).body.csrf_token;
      const out = await app.http.post('/v1/auth/sign-out').set({ cookie: pair, 'x-gw-csrf-token': csrf });
      assert.equal(out.status, 200);
      assert.match(([] as string[]).concat(out.headers['set-cookie'] ?? [])[0]!, /^gw_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await app.close();
      await idp.close();
    }
    // gw serving TLS itself: the connection decides, whatever the public URL says.
    const over = (encrypted: boolean) => ({ socket: { encrypted } }) as unknown as Parameters<typeof cookieIsSecure>[1];
    assert.equal(cookieIsSecure('http://gw.test', over(true)), true);
    assert.equal(cookieIsSecure('http://gw.test', over(false)), false);
  });
});
