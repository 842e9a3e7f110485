/**
 * The MCP SDK client's own OAuth support reaching gw's MCP gateway with nothing configured but the
 * server URL: the 401 challenge, protected-resource metadata (RFC 9728), authorization-server
 * metadata (RFC 8414), dynamic registration (RFC 7591), authorize with PKCE (the browser part:
 * sign-in through the OIDC provider and consent, driven here), the code exchange, then tools/call.
 * The token is bound to the server's resource (RFC 8707): another MCP server refuses it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { storeEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { followToCallback, startOidcIdp, type OidcIdp } from '../helpers/oidc-idp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, gwClient } from '../mcp/mcp-fixtures.js';

const PUBLIC_URL = 'http://gw.test';
const CLIENT_REDIRECT = 'http://127.0.0.1:43211/callback';

/** What an MCP host keeps for one server: registration, PKCE verifier, tokens; "redirecting" records the URL. */
class RecordingProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = CLIENT_REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'SDK host',
    redirect_uris: [CLIENT_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');

for (const engine of storeEngines()) {
  describe(`the MCP SDK client's OAuth support through gw (${engine.name})`, () => {
    let app: TestApp;
    let idp: OidcIdp;
    let upstream: FakeMcpServer;
    /** PUBLIC_URL stands for this test app, as DNS would for a deployed gw. */
    const gwFetch = ((input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      return fetch(url.replace(PUBLIC_URL, app.url), init);
    }) as typeof fetch;

    before(async () => {
      idp = await startOidcIdp([`${PUBLIC_URL}/v1/auth/sso/callback`]);
      upstream = await startFakeMcpServer({ name: 'oauth-mcp' });
      app = await startTestApp({ engine, env: { GW_PUBLIC_URL: PUBLIC_URL, TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      const sso = await app.http.put('/v1/admin/organisation/sso').set('x-gw-api-key', app.adminKey).send({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });
      assert.equal(sso.status, 200, JSON.stringify(sso.body));
      await addMcpServer(app, { url: upstream.url, slug: 'tools' });
      await addMcpServer(app, { url: upstream.url, slug: 'other' });
    });
    after(async () => {
      await app.close();
      await upstream.close();
      await idp.close();
    });

    /** The browser: gw's authorize -> consent page -> SSO sign-in -> consent again -> allow; answers the code sent back. */
    async function browserApproves(authorizeUrl: URL): Promise<string> {
      assert.equal(authorizeUrl.origin, PUBLIC_URL);
      const authorize = await app.http.get(authorizeUrl.pathname + authorizeUrl.search);
      assert.equal(authorize.status, 302, JSON.stringify(authorize.body));
      const consentUrl = new URL(authorize.headers.location!);
      const needsSignIn = await app.http.get(consentUrl.pathname + consentUrl.search);
      assert.equal(needsSignIn.status, 302);
      const signIn = new URL(needsSignIn.headers.location!);
      const start = await app.http.get(signIn.pathname + signIn.search);
      idp.signInAs({ sub: 'idp-sdk-user', email: 'sdk.user@corp.example', given_name: 'Sam' });
      const callback = await followToCallback(start.headers.location!, `${PUBLIC_URL}/v1/auth/sso/callback`);
      const signedIn = await app.http.get(callback.pathname + callback.search);
      assert.equal(signedIn.status, 302);
      const cookie = ([] as string[]).concat(signedIn.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
      const page = await app.http.get(consentUrl.pathname + consentUrl.search).set('cookie', cookie);
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /SDK host/);
      const csrf = page.text.match(/name="csrf_token" value="([^"]+)"/)![1]!;
      const answered = await app.http
        .post('/oauth/postAuthorizeConsent')
        .set('cookie', cookie)
        .type('form')
        .send({ authorization_id: consentUrl.searchParams.get('authorization_id')!, decision: 'approve', csrf_token: csrf });
      assert.equal(answered.status, 302, JSON.stringify(answered.body));
      const back = new URL(answered.headers.location!);
      assert.equal(back.origin + back.pathname, CLIENT_REDIRECT);
      return back.searchParams.get('code')!;
    }

    test('discovery, registration, authorize, token, then tools/call; the token is refused on another server', async () => {
      const provider = new RecordingProvider();
      const serverUrl = new URL(`${PUBLIC_URL}/tools/mcp`);
      const first = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: gwFetch });
      await assert.rejects(new Client({ name: 'sdk-host', version: '1.0.0' }).connect(first), UnauthorizedError);

      // The SDK found gw's authorization server by itself and registered.
      assert.ok(provider.info?.client_id, 'dynamic registration');
      assert.equal((await app.services.store.oauth.getClient(provider.info.client_id))?.client_name, 'SDK host');
      const authorizeUrl = provider.authorizationUrl!;
      assert.equal(authorizeUrl.pathname, '/oauth/authorize');
      assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorizeUrl.searchParams.get('resource'), serverUrl.href);
      assert.equal(authorizeUrl.searchParams.get('scope'), 'mcp.invoke');

      await first.finishAuth(await browserApproves(authorizeUrl));
      assert.match(provider.saved?.access_token ?? '', /^gwat_/);

      const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: gwFetch });
      const client = new Client({ name: 'sdk-host', version: '1.0.0' });
      await client.connect(transport);
      assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })), '42');
      assert.deepEqual(upstream.toolCalls.at(-1), { name: 'add', args: { a: 20, b: 22 } });
      await client.close();

      // RFC 8707: bound to /tools/mcp, so /other/mcp refuses it with the challenge that names its own metadata.
      const bearer = { authorization: `Bearer ${provider.saved!.access_token}` };
      await assert.rejects(gwClient(app.url, 'other', bearer), /401|issued for/);
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
      const refused = await app.http.post('/other/mcp').set({ ...bearer, accept: 'application/json, text/event-stream' }).send(initialize);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'invalid_token');
      assert.match(refused.body.error.message, /issued for http:\/\/gw\.test\/tools\/mcp/);
      assert.match(String(refused.headers['www-authenticate']), /oauth-protected-resource\/other\/mcp.*error="invalid_token"/);
      const allowed = await app.http.post('/tools/mcp').set({ ...bearer, accept: 'application/json, text/event-stream' }).send(initialize);
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    });
  });
}
