/**
 * mTLS to agents: an HTTPS agent on loopback that requires a client certificate signed by a CA
 * made at test time. Without the integration's stored certificate gw's card fetch and relay fail
 * and say why; with it both succeed; the private key never shows in answers, logs or the audit log.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';
import { workspaceKey } from './a2a-fixtures.js';

interface TlsAgent {
  url: string;
  /** The subject CN of each client certificate the agent accepted. */
  clients: string[];
  close(): Promise<void>;
}

/** A 0.3 JSON-RPC agent over HTTPS that refuses connections without a client certificate from `certs.ca`. */
async function startTlsAgent(certs: TestCertificates): Promise<TlsAgent> {
  const clients: string[] = [];
  let url = '';
  const server: Server = createServer({ cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'TLS agent', description: 'speaks mTLS only', url, protocolVersion: '0.3.0', version: '1', capabilities: {}, defaultInputModes: ['text'], defaultOutputModes: ['text'], skills: [] }));
      return;
    }
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(raw) as { id: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { kind: 'message', role: 'agent', messageId: 'answer-1', parts: [{ kind: 'text', text: 'hello over mTLS' }] } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, clients, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const send = { jsonrpc: '2.0', id: 'm1', method: 'message/send', params: { message: { kind: 'message', messageId: 'q1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } } };

for (const engine of fullEngines()) {
  describe(`mTLS to agents (${engine.name})`, () => {
    let app: TestApp;
    let agent: TlsAgent;
    let certs: TestCertificates;
    let key: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    /** A line from the middle of the client key: whatever form a leak took, it would carry it. */
    let keyLine: string;

    before(async () => {
      certs = makeTestCertificates();
      keyLine = certs.clientKey.split('\n')[2]!;
      agent = await startTlsAgent(certs);
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await agent.close();
    });

    const tls = () => ({ certificate: certs.clientCert, private_key: certs.clientKey, ca_certificates: certs.ca });

    test('the card fetch fails clearly without the client certificate and succeeds with it', async () => {
      const without = await app.http.post('/v2/agent-integrations/fetch-agent-card').set(admin()).send({ url: agent.url, client_tls: { certificate: certs.clientCert, private_key: certs.clientKey, ca_certificates: null } });
      // Without the CA, gw does not trust the agent's certificate; without a client certificate, the agent refuses gw.
      assert.equal(without.status, 502, JSON.stringify(without.body));
      assert.match(without.body.error.message, /could not be reached: .*certificate/i);
      const noClient = await app.http.post('/v2/agent-integrations/fetch-agent-card').set(admin()).send({ url: agent.url });
      assert.equal(noClient.status, 502, JSON.stringify(noClient.body));
      const withCert = await app.http.post('/v2/agent-integrations/fetch-agent-card').set(admin()).send({ url: agent.url, client_tls: tls() });
      assert.equal(withCert.status, 200, JSON.stringify(withCert.body));
      assert.equal(withCert.body.agent_card.name, 'TLS agent');
      assert.doesNotMatch(JSON.stringify(withCert.body), new RegExp(keyLine.replace(/[+/]/g, '\\$&')));
    });

    test('a key that does not belong to the certificate is refused at save', async () => {
      const wrong = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'wrong', url: agent.url, client_tls: { certificate: certs.clientCert, private_key: certs.serverKey } });
      assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
      assert.equal(wrong.body.error.code, 'invalid_client_certificate');
      const noKey = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'nokey', url: agent.url, client_tls: { certificate: certs.clientCert } });
      assert.equal(noKey.status, 400, JSON.stringify(noKey.body));
    });

    test('the relay presents the stored certificate; without it the call fails and says why; the key is masked everywhere', async () => {
      const card = { name: 'TLS agent', url: agent.url, protocolVersion: '0.3.0', skills: [] };
      const plain = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'tls plain', slug: 'tls-plain', url: agent.url, agent_card: card });
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      assert.equal(plain.body.client_tls, null);
      const created = await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'tls agent', slug: 'tls-agent', url: agent.url, agent_card: card, client_tls: tls() });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.client_tls.certificate, certs.clientCert);
      assert.notEqual(created.body.client_tls.private_key, certs.clientKey);
      assert.match(created.body.client_tls.private_key, /\*{8}/);

      const refused = await app.http.post('/a2a/tls-plain/').set({ 'x-gw-api-key': key }).send(send);
      assert.equal(refused.status, 502, JSON.stringify(refused.body));
      assert.match(refused.body.error.message, /Agent tls-plain is unreachable or closed the connection: .*certificate/);

      // gw trusts the agent (the CA is given) but presents a certificate the agent does not trust: the agent refuses the handshake.
      const stranger = makeTestCertificates();
      const strangerTls = { certificate: stranger.clientCert, private_key: stranger.clientKey, ca_certificates: certs.ca };
      assert.equal((await app.http.post('/v2/agent-integrations').set(admin()).send({ name: 'stranger', slug: 'tls-stranger', url: agent.url, agent_card: card, client_tls: strangerTls })).status, 201);
      const seenBefore = agent.clients.length;
      const untrusted = await app.http.post('/a2a/tls-stranger/').set({ 'x-gw-api-key': key }).send(send);
      assert.equal(untrusted.status, 502, JSON.stringify(untrusted.body));
      assert.match(untrusted.body.error.message, /Agent tls-stranger is unreachable or closed the connection: \S/);
      assert.equal(agent.clients.length, seenBefore);
      const answered = await app.http.post('/a2a/tls-agent/').set({ 'x-gw-api-key': key }).send(send);
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.result.parts[0].text, 'hello over mTLS');
      assert.deepEqual(agent.clients.slice(seenBefore), ['gw client']);
      // The HTTP+JSON binding relays over the same pools.
      const rest = await app.http.post('/a2a/tls-agent/message:send').set({ 'x-gw-api-key': key }).send({ message: { messageId: 'q2', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
      assert.equal(rest.status, 200, JSON.stringify(rest.body));
      assert.equal(rest.body.message.parts[0].text, 'hello over mTLS');

      // Sent back masked, the key keeps its value; null removes the certificate.
      const echoed = await app.http.put('/v2/agent-integrations/tls-agent').set(admin()).send({ client_tls: created.body.client_tls });
      assert.equal(echoed.status, 200, JSON.stringify(echoed.body));
      assert.equal((await app.http.post('/a2a/tls-agent/').set({ 'x-gw-api-key': key }).send(send)).status, 200);

      const leaks = [
        JSON.stringify((await app.http.get('/v2/agent-integrations/tls-agent').set(admin())).body),
        JSON.stringify((await app.http.get('/v2/agent-integrations').set(admin())).body),
      ];
      await app.services.requestLogs.flush();
      leaks.push(JSON.stringify((await app.http.get('/v1/logs').query({ endpoint: 'a2a', limit: 100 }).set(admin())).body));
      const audit = await app.http.get('/v1/audit-logs').query({ limit: 100 }).set(admin());
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      assert.match(JSON.stringify(audit.body), /createAgentIntegration/);
      leaks.push(JSON.stringify(audit.body));
      for (const text of leaks) assert.ok(!text.includes(keyLine), 'the private key shows');

      // A changed certificate is the one presented on the next call, not the kept-alive connection's old one.
      assert.equal((await app.http.put('/v2/agent-integrations/tls-agent').set(admin()).send({ client_tls: strangerTls })).status, 200);
      assert.equal((await app.http.post('/a2a/tls-agent/').set({ 'x-gw-api-key': key }).send(send)).status, 502);
      assert.equal((await app.http.put('/v2/agent-integrations/tls-agent').set(admin()).send({ client_tls: tls() })).status, 200);
      assert.equal((await app.http.post('/a2a/tls-agent/').set({ 'x-gw-api-key': key }).send(send)).status, 200);

      const removed = await app.http.put('/v2/agent-integrations/tls-agent').set(admin()).send({ client_tls: null });
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.equal(removed.body.client_tls, null);
      assert.equal((await app.http.post('/a2a/tls-agent/').set({ 'x-gw-api-key': key }).send(send)).status, 502);
    });
  });
}
