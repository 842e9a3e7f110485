/**
 * gw's OAuth 2.1 authorization server end to end, driven by openid-client as the client:
 * metadata discovery (RFC 8414, RFC 9728), dynamic registration (RFC 7591), authorize with PKCE,
 * sign-in through the OIDC provider, consent, the code exchange, refresh rotation and replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { storeEngines } from '../helpers/engines.js';
import { followToCallback, startOidcIdp, type OidcIdp } from '../helpers/oidc-idp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { protectedResourceMetadata, wwwAuthenticate } from '../../core/auth/oauth/metadata.js';

const PUBLIC_URL = 'http://gw.test';
const CLIENT_REDIRECT = 'http://127.0.0.1:43210/oauth/callback';

for (const engine of storeEngines()) {
  describe(`OAuth authorization server (${engine.name})`, () => {
    let app: TestApp;
    let idp: OidcIdp;
    /** What a browser does with gw's redirects: PUBLIC_URL is this test app. */
    const onGw = (url: string) => url.replace(PUBLIC_URL, app.url);
    const gwFetch: oidc.CustomFetch = (url, options) => fetch(onGw(url), options as RequestInit);

    before(async () => {
      idp = await startOidcIdp([`${PUBLIC_URL}/v1/auth/sso/callback`]);
      app = await startTestApp({ engine, env: { GW_PUBLIC_URL: PUBLIC_URL, TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      await app.http.put('/v1/admin/organisation/sso').set('x-gw-api-key', app.adminKey).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });
    });
    after(async () => {
      await app.close();
      await idp.close();
    });

    /** The browser part: authorize -> (sign in) -> consent page -> decision; answers where gw sends the browser back to the client. */
    async function browserAuthorizes(authorizeUrl: URL, decision: 'approve' | 'deny', cookie?: string): Promise<{ back: URL; cookie: string }> {
      const authorize = await app.http.get(authorizeUrl.pathname + authorizeUrl.search);
      assert.equal(authorize.status, 302, JSON.stringify(authorize.body));
      const consentUrl = new URL(authorize.headers.location!);
      if (!cookie) {
        const needsSignIn = await app.http.get(consentUrl.pathname + consentUrl.search);
        assert.equal(needsSignIn.status, 302);
        const signIn = new URL(needsSignIn.headers.location!);
        assert.equal(signIn.pathname, '/v1/auth/sso/login');
        const start = await app.http.get(signIn.pathname + signIn.search);
        idp.signInAs({ sub: 'idp-octavia', email: 'octavia@corp.example', given_name: 'Octavia' });
        const callback = await followToCallback(start.headers.location!, `${PUBLIC_URL}/v1/auth/sso/callback`);
        const signedIn = await app.http.get(callback.pathname + callback.search);
        assert.equal(signedIn.status, 302);
        assert.equal(signedIn.headers.location, consentUrl.pathname + consentUrl.search, 'sign-in returns to the consent page');
        cookie = ([] as string[]).concat(signedIn.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
      }
      const page = await app.http.get(consentUrl.pathname + consentUrl.search).set('cookie', cookie);
      assert.equal(page.status, 200, page.text);
      assert.match(page.headers['content-type']!, /^text\/html/);
      assert.match(page.text, /mcp\.invoke/);
      const csrf = page.text.match(/name="csrf_token" value="([^"]+)"/)![1]!;
      const id = consentUrl.searchParams.get('authorization_id')!;

      const forged = await app.http.post('/oauth/postAuthorizeConsent').set('cookie', cookie).type('form').send({ authorization_id: id, decision, csrf_token: 'forged' });
      assert.equal(forged.status, 403);
      const answered = await app.http.post('/oauth/postAuthorizeConsent').set('cookie', cookie).type('form').send({ authorization_id: id, decision, csrf_token: csrf });
      assert.equal(answered.status, 302, JSON.stringify(answered.body));
      return { back: new URL(answered.headers.location!), cookie };
    }

    test('metadata documents, and a protected resource challenge that points to them', async () => {
      const metadata = await app.http.get('/.well-known/oauth-authorization-server');
      assert.equal(metadata.status, 200);
      assert.equal(metadata.body.issuer, PUBLIC_URL);
      assert.equal(metadata.body.registration_endpoint, `${PUBLIC_URL}/oauth/register`);
      assert.deepEqual(metadata.body.code_challenge_methods_supported, ['S256']);
      assert.ok(metadata.body.scopes_supported.includes('mcp.invoke'));
      const resource = await app.http.get('/.well-known/oauth-protected-resource');
      assert.deepEqual(resource.body.authorization_servers, [PUBLIC_URL]);
      assert.equal(resource.body.resource, `${PUBLIC_URL}/v1`);
      // The generator MCP server routes use: metadata per resource path, and the challenge naming it.
      assert.equal(protectedResourceMetadata(PUBLIC_URL, '/v1/mcp/github').resource, `${PUBLIC_URL}/v1/mcp/github`);
      assert.equal(wwwAuthenticate(PUBLIC_URL, '/v1/mcp/github'), `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/v1/mcp/github"`);
    });

    test('registration refuses bad redirect URIs', async () => {
      for (const uri of ['http://example.com/cb', 'https://example.com/cb#frag', 'not a url', 'javascript:alert(1)', 'https://user:pw@example.com/cb']) {
        const refused = await app.http.post('/oauth/register').send({ redirect_uris: [uri], client_name: 'bad' });
        assert.equal(refused.status, 400, uri);
        assert.equal(refused.body.error, 'invalid_redirect_uri', uri);
        assert.ok(refused.body.error_description);
      }
      const invalid = await app.http.post('/oauth/register').send({ client_name: 'no uris' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.error, 'invalid_request');
      for (const uri of ['https://client.example/cb', 'http://localhost:8080/cb', 'http://[::1]/cb']) {
        assert.equal((await app.http.post('/oauth/register').send({ redirect_uris: [uri] })).status, 201, uri);
      }
    });

    test('register, authorize with PKCE, sign in, consent, exchange, use, refresh with rotation, replay revokes', async () => {
      const registered = await app.http.post('/oauth/register').send({ redirect_uris: [CLIENT_REDIRECT], client_name: 'MCP Inspector', token_endpoint_auth_method: 'none' });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      assert.equal(registered.body.client_secret, undefined);
      const clientId: string = registered.body.client_id;

      const server = await oidc.discovery(new URL(PUBLIC_URL), clientId, undefined, oidc.None(), {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
        [oidc.customFetch]: gwFetch,
      });
      assert.equal(server.serverMetadata().token_endpoint, `${PUBLIC_URL}/oauth/token`);

      // Without PKCE: back to the client with invalid_request.
      const noPkce = await app.http.get('/oauth/authorize').query({ response_type: 'code', client_id: clientId, redirect_uri: CLIENT_REDIRECT, state: 's0' });
      assert.equal(noPkce.status, 302);
      const noPkceBack = new URL(noPkce.headers.location!);
      assert.equal(noPkceBack.searchParams.get('error'), 'invalid_request');
      assert.equal(noPkceBack.searchParams.get('state'), 's0');
      // A redirect_uri the client did not register is never redirected to.
      const elsewhere = await app.http.get('/oauth/authorize').query({ response_type: 'code', client_id: clientId, redirect_uri: 'https://evil.example/cb' });
      assert.equal(elsewhere.status, 400);

      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const authorizeUrl = oidc.buildAuthorizationUrl(server, {
        redirect_uri: CLIENT_REDIRECT,
        scope: 'mcp.invoke workspaces.list',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        resource: `${PUBLIC_URL}/v1/mcp/github`,
      });
      const { back, cookie } = await browserAuthorizes(authorizeUrl, 'approve');
      assert.equal(back.origin + back.pathname, CLIENT_REDIRECT);

      // A wrong verifier is refused (and does not spend the code).
      const wrong = await app.http.post('/oauth/token').type('form').send({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: CLIENT_REDIRECT, client_id: clientId, code_verifier: oidc.randomPKCECodeVerifier() });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');

      const tokens = await oidc.authorizationCodeGrant(server, back, { pkceCodeVerifier: verifier, expectedState: state });
      assert.match(tokens.access_token, /^gwat_/);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.scope, 'mcp.invoke workspaces.list');
      assert.ok(tokens.refresh_token);
      const replayCode = await app.http.post('/oauth/token').type('form').send({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: CLIENT_REDIRECT, client_id: clientId, code_verifier: verifier });
      assert.equal(replayCode.body.error, 'invalid_grant');

      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      const self = await app.http.get('/v1/auth/self').set(bearer(tokens.access_token));
      assert.equal(self.status, 200, JSON.stringify(self.body));
      assert.equal(self.body.credential, 'oauth');
      assert.equal(self.body.user.email, 'octavia@corp.example');
      assert.deepEqual(self.body.scopes, ['mcp.invoke', 'workspaces.list']);
      assert.equal((await app.http.get('/v1/workspaces').set(bearer(tokens.access_token))).status, 200);
      const notGranted = await app.http.get('/v1/logs').set(bearer(tokens.access_token));
      assert.equal(notGranted.status, 403, 'an access token holds only the scopes granted');

      const refreshed = await oidc.refreshTokenGrant(server, tokens.refresh_token!);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'the refresh token rotates');
      assert.equal((await app.http.get('/v1/workspaces').set(bearer(refreshed.access_token))).status, 200);
      const widen = await app.http.post('/oauth/token').type('form').send({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token!, client_id: clientId, scope: 'mcp.invoke logs.list' });
      assert.equal(widen.body.error, 'invalid_scope');

      // Replaying the spent refresh token revokes the whole grant, the newest tokens included.
      const replay = await app.http.post('/oauth/token').type('form').send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId });
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
      assert.equal((await app.http.get('/v1/workspaces').set(bearer(refreshed.access_token))).status, 401);
      const afterRevoke = await app.http.post('/oauth/token').type('form').send({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token!, client_id: clientId });
      assert.equal(afterRevoke.body.error, 'invalid_grant');

      // Refusing consent sends access_denied back; a confidential client authenticates with Basic.
      const confidential = await app.http.post('/oauth/register').send({ redirect_uris: [CLIENT_REDIRECT], token_endpoint_auth_method: 'client_secret_basic' });
      assert.match(confidential.body.client_secret, /^gwcs_/);
      const secretServer = await oidc.discovery(new URL(PUBLIC_URL), confidential.body.client_id, confidential.body.client_secret, oidc.ClientSecretBasic(confidential.body.client_secret), {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
        [oidc.customFetch]: gwFetch,
      });
      const denyVerifier = oidc.randomPKCECodeVerifier();
      const denied = await browserAuthorizes(
        oidc.buildAuthorizationUrl(secretServer, { redirect_uri: CLIENT_REDIRECT, scope: 'mcp.invoke', code_challenge: await oidc.calculatePKCECodeChallenge(denyVerifier), code_challenge_method: 'S256', state: 'd1' }),
        'deny',
        cookie,
      );
      assert.equal(denied.back.searchParams.get('error'), 'access_denied');
      assert.equal(denied.back.searchParams.get('state'), 'd1');
      const okVerifier = oidc.randomPKCECodeVerifier();
      const approved = await browserAuthorizes(
        oidc.buildAuthorizationUrl(secretServer, { redirect_uri: CLIENT_REDIRECT, scope: 'mcp.invoke', code_challenge: await oidc.calculatePKCECodeChallenge(okVerifier), code_challenge_method: 'S256', state: 'a1' }),
        'approve',
        cookie,
      );
      const confidentialTokens = await oidc.authorizationCodeGrant(secretServer, approved.back, { pkceCodeVerifier: okVerifier, expectedState: 'a1' });
      assert.equal(confidentialTokens.scope, 'mcp.invoke');
      const wrongSecret = await app.http.post('/oauth/token').auth(confidential.body.client_id, 'gwcs_wrong').type('form').send({ grant_type: 'refresh_token', refresh_token: confidentialTokens.refresh_token! });
      assert.equal(wrongSecret.status, 401);
      assert.equal(wrongSecret.body.error, 'invalid_client');

      // Removing the user ends their OAuth grants.
      const user = await app.services.store.users.findByEmail(app.boot.organisationId, 'octavia@corp.example');
      assert.equal((await app.http.delete(`/v1/admin/users/${user!.id}`).set('x-gw-api-key', app.adminKey)).status, 200);
      assert.equal((await app.http.get('/v1/auth/self').set(bearer(confidentialTokens.access_token))).status, 401);
    });
  });
}
