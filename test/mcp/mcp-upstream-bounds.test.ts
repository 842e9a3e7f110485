/**
 * What gw reads from an MCP server is bounded: time (REQUEST_TIMEOUT covers opening a connection,
 * on either transport, as well as each request) and size (GW_MAX_UPSTREAM_ANSWER_BYTES). The
 * servers here are loopback fakes: one that never answers, and the SDK's own server with a tool
 * whose answer is as large as asked.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TIMEOUT_MS = 300;

/** Takes every request and never answers it: no headers (`silent`), or an SSE stream's headers and nothing after (`open`). */
async function startSilentServer(mode: 'silent' | 'open'): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    held.push(res);
    if (mode === 'open' && req.method === 'GET') res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).flushHeaders();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('an MCP server that never answers', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', REQUEST_TIMEOUT: String(TIMEOUT_MS) } });
  });
  after(() => app.close());

  for (const transport of ['sse', 'http'] as const) {
    for (const mode of ['silent', 'open'] as const) {
      test(`${transport} transport, ${mode === 'silent' ? 'no answer at all' : 'a stream opened and nothing sent'}: creating the integration stops at REQUEST_TIMEOUT and records the failure`, { timeout: 60_000 }, async () => {
        const silent = await startSilentServer(mode);
        try {
          const admin = { 'x-gw-api-key': app.adminKey };
          const created = await app.http.post('/v1/mcp-integrations').set(admin).send({ name: `Silent ${transport} ${mode}`, url: silent.url, transport, auth_type: 'none', global_workspace_access: true });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          assert.equal(created.body.sync_status, "failed", JSON.stringify(created.body));
          const metadata = await app.http.get(`/v1/mcp-integrations/${created.body.id}/metadata`).set(admin);
          assert.match(metadata.body.sync_error, /did not open the connection within 300 ms \(REQUEST_TIMEOUT\)|Request timed out/);
          assert.ok(silent.requests() > 0, 'the server was reached');

          // The gateway opening a session with it stops at the same bound, with the timeout's JSON-RPC error.
          const slug = `silent-${transport}-${mode}`;
          const server = await app.http.post('/v1/mcp-servers').set(admin).send({ name: slug, slug, mcp_integration_id: created.body.id });
          assert.equal(server.status, 201, JSON.stringify(server.body));
          const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
          const answer = await app.http.post(`/${slug}/mcp`).set({ ...admin, accept: 'application/json, text/event-stream' }).send(initialize);
          assert.equal(answer.status, 502);
          assert.deepEqual(answer.body.error, { code: -32001, message: `MCP server ${slug} did not answer in time` });
        } finally {
          await silent.close();
        }
      });
    }
  }
});
