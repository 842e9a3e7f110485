/**
 * Agent integrations and POST /v2/agent-integrations/fetch-agent-card against a fake A2A agent on
 * loopback: the card is read from the well-known path with the agent's auth, and every refusal
 * (unsafe address incl. redirects, not JSON, not an object, no url or name, over 1 MB, timeout)
 * answers with its own code and message.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const AGENT_TOKEN = 'agent-bearer-token-0123456789';
const CARD = { name: 'Travel agent', url: 'https://agent.example.com/a2a', version: '1.0.0', protocolVersion: '0.3.0', skills: [{ id: 'book', name: 'Book' }] };

interface FakeAgent {
  url: string;
  /** Set when the endless body's connection was closed by the reader. */
  endlessClosed: Promise<void>;
  endlessBytes: () => number;
  close(): Promise<void>;
}

async function startFakeAgent(): Promise<FakeAgent> {
  let sent = 0;
  let closed!: () => void;
  const endlessClosed = new Promise<void>((resolve) => (closed = resolve));
  const json = (res: ServerResponse, body: string, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    switch (path) {
      case '/good/.well-known/agent-card.json':
        if (req.headers.authorization !== `Bearer ${AGENT_TOKEN}`) return json(res, '{"error":"unauthorized"}', 401);
        return json(res, JSON.stringify(CARD));
      case '/cards/open.json':
        return json(res, JSON.stringify(CARD));
      case '/html/.well-known/agent-card.json':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>not a card</body></html>');
      case '/array/.well-known/agent-card.json':
        return json(res, '[{"name":"x","url":"y"}]');
      case '/no-url/.well-known/agent-card.json':
        return json(res, '{"name":"no url"}');
      case '/no-name/.well-known/agent-card.json':
        return json(res, '{"url":"https://agent.example.com"}');
      case '/missing/.well-known/agent-card.json':
        return json(res, '{"error":"not found"}', 404);
      case '/redirect-private/.well-known/agent-card.json':
        res.writeHead(302, { location: 'http://127.0.0.2:9/.well-known/agent-card.json' });
        return res.end();
      case '/redirect-ok/.well-known/agent-card.json':
        res.writeHead(302, { location: '/cards/open.json' });
        return res.end();
      case '/hang/.well-known/agent-card.json':
        return; // never answers
      case '/endless/.well-known/agent-card.json': {
        // A JSON string that never ends, written as fast as the reader takes it.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"name":"');
        const chunk = 'a'.repeat(64 * 1024);
        const pump = () => {
          while (!res.destroyed) {
            const more = res.write(chunk);
            sent += chunk.length;
            if (!more) break;
          }
        };
        res.on('drain', pump);
        res.on('close', closed);
        return pump();
      }
      default:
        return json(res, '{}', 404);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    endlessClosed,
    endlessBytes: () => sent,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const engine of fullEngines()) {
  describe(`agent integrations (${engine.name})`, () => {
    let app: TestApp;
    let agent: FakeAgent;
    const answers: string[] = [];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const send = async (method: 'post' | 'put' | 'get' | 'delete', path: string, body?: object) => {
      const request = app.http[method](path).set(admin());
      const response = body === undefined ? await request : await request.send(body);
      answers.push(JSON.stringify(response.body));
      return response;
    };
    const fetchCard = (url: string, extra: object = {}) => send('post', '/v2/agent-integrations/fetch-agent-card', { url, ...extra });

    before(async () => {
      agent = await startFakeAgent();
      app = await startTestApp({
        engine,
        env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_AGENT_CARD_TIMEOUT_MS: '3000' },
        // A stubbed resolver: no test queries real DNS.
        resolveHost: async (hostname) => (hostname === 'agent.internal.example' ? ['10.1.2.3'] : hostname === 'agent.mixed.example' ? ['93.184.216.34', '192.168.1.9'] : []),
      });
    });
    after(async () => {
      assert.ok(!answers.some((a) => a.includes(AGENT_TOKEN)), 'the agent token reached a response');
      await app.close();
      await agent.close();
    });

    test('create, list, get, update, delete: the auth token sealed and masked', async () => {
      const created = await send('post', '/v2/agent-integrations', {
        name: 'Travel agent',
        url: `${agent.url}/good`,
        auth_type: 'bearer',
        auth_config: { token: AGENT_TOKEN },
        agent_card: CARD,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.object, 'agent-integration');
      assert.equal(created.body.slug, 'travel-agent');
      assert.equal(created.body.auth_config.token, 'agen********6789');
      assert.deepEqual(created.body.agent_card, CARD);
      const row = await app.services.db('agent_integrations').where({ id: created.body.id }).first();
      assert.ok(!JSON.stringify(row).includes(AGENT_TOKEN));
      assert.ok(app.services.secrets.open(row.secrets).includes(AGENT_TOKEN));

      assert.equal((await send('get', '/v2/agent-integrations/travel-agent')).body.id, created.body.id);
      const listed = await send('get', '/v2/agent-integrations?search=travel');
      assert.deepEqual(listed.body.data.map((a: { slug: string }) => a.slug), ['travel-agent']);

      const updated = await send('put', `/v2/agent-integrations/${created.body.id}`, { description: 'books trips', auth_config: { token: created.body.auth_config.token } });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.description, 'books trips');
      const kept = await app.services.db('agent_integrations').where({ id: created.body.id }).first();
      assert.ok(app.services.secrets.open(kept.secrets).includes(AGENT_TOKEN), 'a masked value sent back keeps the secret');

      const badCard = await send('post', '/v2/agent-integrations', { name: 'bad', url: `${agent.url}/x`, agent_card: { name: 'no url' } });
      assert.equal(badCard.status, 400);
      const noToken = await send('post', '/v2/agent-integrations', { name: 'no token', url: `${agent.url}/x`, auth_type: 'bearer' });
      assert.equal(noToken.status, 400);
      assert.equal(noToken.body.error.param, 'auth_config.token');

      assert.equal((await send('delete', `/v2/agent-integrations/${created.body.id}`)).status, 200);
      assert.equal((await send('get', `/v2/agent-integrations/${created.body.id}`)).status, 404);
    });

    test('an A2A 1.0 card is accepted; door fields are checked and answered with the gateway URL', async () => {
      const v1Card = { name: 'Planner', description: 'plans', version: '2', supportedInterfaces: [{ url: 'https://agent.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], skills: [] };
      const created = await send('post', '/v2/agent-integrations', { name: 'Planner', url: `${agent.url}/good`, agent_card: v1Card, workspace_ids: ['default'], allowed_skills: ['plan'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.agent_card, v1Card);
      assert.deepEqual(created.body.workspace_ids, [app.boot.workspaceId]);
      assert.deepEqual(created.body.allowed_skills, ['plan']);
      assert.deepEqual([created.body.input_guardrails, created.body.output_guardrails], [[], []]);
      assert.equal(created.body.gateway_url, `${app.services.config.publicUrl}/a2a/planner/`);
      const noEndpoint = await send('post', '/v2/agent-integrations', { name: 'x', url: `${agent.url}/x`, agent_card: { name: 'x', supportedInterfaces: [{ protocolBinding: 'JSONRPC' }] } });
      assert.equal(noEndpoint.status, 400);
      assert.equal(noEndpoint.body.error.code, 'agent_card_missing_field');
      const unknownWorkspace = await send('put', `/v2/agent-integrations/${created.body.id}`, { workspace_ids: ['nowhere'] });
      assert.equal(unknownWorkspace.status, 404);
      const unknownGuardrail = await send('put', `/v2/agent-integrations/${created.body.id}`, { input_guardrails: ['no-such-guardrail'] });
      assert.equal(unknownGuardrail.status, 400);
      assert.equal(unknownGuardrail.body.error.code, 'unknown_guardrail');
      assert.equal(unknownGuardrail.body.error.param, 'input_guardrails[0]');
      const everyone = await send('put', `/v2/agent-integrations/${created.body.id}`, { workspace_ids: null, allowed_skills: null });
      assert.equal(everyone.status, 200);
      assert.deepEqual([everyone.body.workspace_ids, everyone.body.allowed_skills], [null, null]);
      assert.equal((await send('delete', `/v2/agent-integrations/${created.body.id}`)).status, 200);
    });

    test('fetch-agent-card reads the well-known card with the agent auth, and follows a safe redirect', async () => {
      const fetched = await fetchCard(`${agent.url}/good`, { auth_type: 'bearer', auth_config: { token: AGENT_TOKEN } });
      assert.equal(fetched.status, 200, JSON.stringify(fetched.body));
      assert.equal(fetched.body.url, `${agent.url}/good/.well-known/agent-card.json`);
      assert.deepEqual(fetched.body.agent_card, CARD);
      const direct = await fetchCard(`${agent.url}/cards/open.json`);
      assert.deepEqual(direct.body.agent_card, CARD);
      const redirected = await fetchCard(`${agent.url}/redirect-ok`);
      assert.equal(redirected.status, 200);
      assert.equal(redirected.body.agent_card.name, CARD.name);
    });

    test('unsafe endpoints are refused by the outbound address guard, redirects included', async () => {
      for (const url of ['http://127.0.0.2:8080/a', 'http://2130706434/a', 'http://0x7f000002/a', 'http://[::1]:8080/a', 'http://localhost:8080/a', 'http://agent.internal.example/a', 'http://agent.mixed.example/a']) {
        const refused = await fetchCard(url);
        assert.equal(refused.status, 400, `${url}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.error.code, 'agent_card_url_refused', url);
        assert.equal(refused.body.error.param, 'url');
      }
      const redirect = await fetchCard(`${agent.url}/redirect-private`);
      assert.equal(redirect.status, 400);
      assert.equal(redirect.body.error.code, 'agent_card_url_refused');
      assert.match(redirect.body.error.message, /127\.0\.0\.2/);
    });

    test('bodies that are not agent cards are refused, each with its own message', async () => {
      const cases: Array<[string, number, string, RegExp]> = [
        ['html', 400, 'agent_card_not_json', /did not answer JSON/],
        ['array', 400, 'agent_card_not_object', /not a JSON object/],
        ['no-url', 400, 'agent_card_missing_field', /no "url"/],
        ['no-name', 400, 'agent_card_missing_field', /no "name"/],
        ['missing', 502, 'agent_card_fetch_failed', /HTTP 404/],
      ];
      for (const [path, status, code, message] of cases) {
        const refused = await fetchCard(`${agent.url}/${path}`);
        assert.equal(refused.status, status, `${path}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.error.code, code, path);
        assert.match(refused.body.error.message, message, path);
      }
      const unauthorised = await fetchCard(`${agent.url}/good`);
      assert.equal(unauthorised.status, 502, 'without the token the agent answers 401');
    });

    test('a body over 1 MB is refused and reading stops there', async () => {
      const refused = await fetchCard(`${agent.url}/endless`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'agent_card_too_large');
      assert.match(refused.body.error.message, /over 1 MB/);
      // The endless body's connection was closed by gw: it did not keep reading.
      await agent.endlessClosed;
      assert.ok(agent.endlessBytes() > 1024 * 1024);
    });

    test('an endpoint that does not answer in time is refused', async () => {
      const refused = await fetchCard(`${agent.url}/hang`);
      assert.equal(refused.status, 408);
      assert.equal(refused.body.error.code, 'request_timeout');
      assert.match(refused.body.error.message, /did not answer with an agent card within 3000 ms/);
    });
  });
}
