/**
 * Agents behind OAuth client credentials: gw fetches a token from the integration's token endpoint
 * (a fake issuer on loopback checking the real form), keeps it across calls, sends it as a bearer
 * token, and fetches a new one when the agent refuses it; the client secret is stored sealed and
 * masked; a token endpoint on an address gw may not call is refused at save.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startFakeTokenEndpoints, type FakeTokenEndpoints } from '../helpers/fake-token-endpoints.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PUBLIC_URL, testClient, workspaceKey } from './a2a-fixtures.js';

interface Gatekeeper {
  url: string;
  /** Tokens the issuer handed out that the agent no longer takes. */
  revoked: Set<string>;
  refused: number;
  close(): Promise<void>;
}

/** A loopback gate in front of the agent: forwards a request bearing a live token of the issuer, else 401. */
async function startGatekeeper(agent: FakeA2aAgent, issuer: FakeTokenEndpoints): Promise<Gatekeeper> {
  const gate = { revoked: new Set<string>(), refused: 0 };
  const server: Server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !issuer.issued.oauth.includes(token) || gate.revoked.has(token)) {
      gate.refused += 1;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = req.method === 'GET' ? undefined : Buffer.concat(parts);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
      fetch(`${agent.url}${req.url}`, { method: req.method, headers, body })
        .then(async (answer) => res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer())))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    revoked: gate.revoked,
    get refused() {
      return gate.refused;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const engine of fullEngines()) {
  describe(`agents behind OAuth client credentials (${engine.name})`, () => {
    let app: TestApp;
    let agent: FakeA2aAgent;
    let gate: Gatekeeper;
    let issuer: FakeTokenEndpoints;
    let key: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const oauth = () => ({
      auth_type: 'oauth_client_credentials',
      auth_config: { token_url: `${issuer.url}/oauth/token`, client_id: issuer.oauthClient.id, client_secret: issuer.oauthClient.secret, scope: issuer.oauthClient.scope },
    });

    before(async () => {
      issuer = await startFakeTokenEndpoints();
      agent = await startFakeA2aAgent('1.0');
      gate = await startGatekeeper(agent, issuer);
      app = await startTestApp({
        engine,
        env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL },
        // A stubbed resolver: no test queries real DNS.
        resolveHost: async (hostname) => (hostname === 'issuer.internal.example' ? ['10.0.0.7'] : []),
      });
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await gate.close();
      await agent.close();
      await issuer.close();
    });

    test('the card is fetched and the integration saved with a token; the client secret is masked in every answer', async () => {
      const fetched = await app.http.post('/v2/agent-integrations/fetch-agent-card').set(admin()).send({ url: agent.url, ...oauth() });
      assert.equal(fetched.status, 200, JSON.stringify(fetched.body));
      assert.equal(issuer.issued.oauth.length, 1);
      assert.equal(agent.requests.at(-1)?.authorization, `Bearer ${issuer.issued.oauth[0]}`);
      const card = { ...fetched.body.agent_card, supportedInterfaces: [{ url: `${gate.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }] };
      const created = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'Guarded', slug: 'guarded', url: gate.url, ...oauth(), agent_card: card });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.auth_type, 'oauth_client_credentials');
      assert.equal(created.body.auth_config.client_id, issuer.oauthClient.id);
      assert.notEqual(created.body.auth_config.client_secret, issuer.oauthClient.secret);
      const listed = await app.http.get('/v2/agent-integrations').set(admin());
      assert.doesNotMatch(JSON.stringify(listed.body), new RegExp(issuer.oauthClient.secret));
    });

    test('calls carry a token from the issuer, kept across calls; a refused token is replaced once', async () => {
      const form = issuer.forms.at(-1)!;
      assert.deepEqual([form.get('grant_type'), form.get('client_id'), form.get('scope')], ['client_credentials', issuer.oauthClient.id, issuer.oauthClient.scope]);
      const client = await testClient('1.0', app, 'guarded', { 'x-gw-api-key': key });
      const issuedBefore = issuer.issued.oauth.length;
      const first = await client.send('echo one');
      assert.deepEqual(first.texts, ['echo echo one']);
      assert.equal(issuer.issued.oauth.length, issuedBefore + 1, 'one token for the first call');
      await client.send('echo two');
      assert.equal(issuer.issued.oauth.length, issuedBefore + 1, 'the token is kept for the next call');

      // The agent stops taking that token: gw gets a 401, fetches a new token and sends again.
      gate.revoked.add(issuer.issued.oauth.at(-1)!);
      const refusedBefore = gate.refused;
      const third = await client.send('echo three');
      assert.deepEqual(third.texts, ['echo echo three']);
      assert.equal(gate.refused, refusedBefore + 1);
      assert.equal(issuer.issued.oauth.length, issuedBefore + 2);
    });

    test('the caller never sees the token and the agent never sees the gw key', () => {
      for (const headers of agent.requests) assert.equal(headers['x-gw-api-key'], undefined);
    });

    test('missing fields and a token endpoint gw may not call are refused at save, naming the field', async () => {
      const missing = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'No secret', url: gate.url, auth_type: 'oauth_client_credentials', auth_config: { token_url: `${issuer.url}/oauth/token`, client_id: 'x' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'auth_config.client_secret');
      for (const tokenUrl of ['http://issuer.internal.example/oauth/token', 'http://127.0.0.2:9/oauth/token', 'http://2130706434/oauth/token']) {
        const refused = await app.http
          .post('/v2/agent-integrations')
          .set(admin())
          .send({ name: 'Private issuer', url: gate.url, auth_type: 'oauth_client_credentials', auth_config: { token_url: tokenUrl, client_id: 'x', client_secret: 'y' } });
        assert.equal(refused.status, 400, `${tokenUrl}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.error.param, 'auth_config.token_url');
        assert.equal(refused.body.error.code, 'agent_token_url_refused');
      }
    });
  });
}
