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
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, gwClient } from './mcp-fixtures.js';

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

const MAX_ANSWER = 16 * 1024;

/** Answers every request with `bytes` bytes of JSON-looking text, with its length declared or chunked. */
async function startFloodServer(bytes: number, declared: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(bytes) } : {}) });
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let left = bytes;
    const pump = () => {
      while (left > 0) {
        const part = piece.subarray(0, Math.min(piece.length, left));
        left -= part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('MCP answers past GW_MAX_UPSTREAM_ANSWER_BYTES', () => {
  let app: TestApp;
  const upstreams: FakeMcpServer[] = [];
  before(async () => {
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_MAX_UPSTREAM_ANSWER_BYTES: String(MAX_ANSWER) } });
  });
  after(async () => {
    await app.close();
    for (const upstream of upstreams) await upstream.close();
  });

  const variants = [
    { name: 'Streamable HTTP, answers on an SSE stream', options: {}, transport: 'http' as const },
    { name: 'Streamable HTTP, JSON answers', options: { stateless: true }, transport: 'http' as const },
    { name: 'the older HTTP+SSE transport', options: { sse: true }, transport: 'sse' as const },
  ];
  for (const variant of variants) {
    test(`${variant.name}: a tool result past the bound fails that call with a clear JSON-RPC error; smaller ones pass`, async () => {
      const upstream = await startFakeMcpServer({ name: 'big-mcp', bigTool: true, ...variant.options });
      upstreams.push(upstream);
      const slug = `big-${variants.indexOf(variant)}`;
      await addMcpServer(app, { url: upstream.url, slug, transport: variant.transport });
      const { client } = await gwClient(app.url, slug, { 'x-gw-api-key': app.adminKey });
      const small = await client.callTool({ name: 'big', arguments: { bytes: 1000 } });
      assert.equal((small.content as Array<{ text: string }>)[0]!.text.length, 1000);
      await assert.rejects(client.callTool({ name: 'big', arguments: { bytes: 10 * MAX_ANSWER } }), (error: unknown) => {
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, -32603);
        assert.equal(error.message, `MCP error -32603: MCP server ${slug} answered more than ${MAX_ANSWER} bytes, the most gw reads from another server (GW_MAX_UPSTREAM_ANSWER_BYTES)`);
        return true;
      });
      assert.equal(upstream.toolCalls.at(-1)?.name, 'big', 'the call reached the server; its answer was what was refused');
      const again = await client.callTool({ name: 'big', arguments: { bytes: 10 } });
      assert.equal((again.content as Array<{ text: string }>)[0]!.text, 'x'.repeat(10));
      await client.close();
    });
  }

  for (const declared of [true, false]) {
    test(`an answer of 50 MB ${declared ? 'with its length declared' : 'sent chunked'}: the sync fails naming the bound`, async () => {
      const flood = await startFloodServer(50 * 1024 * 1024, declared);
      try {
        const admin = { 'x-gw-api-key': app.adminKey };
        const created = await app.http.post('/v1/mcp-integrations').set(admin).send({ name: `Flood ${declared}`, url: flood.url, transport: 'http', auth_type: 'none' });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.sync_status, 'failed');
        const metadata = await app.http.get(`/v1/mcp-integrations/${created.body.id}/metadata`).set(admin);
        assert.match(metadata.body.sync_error, new RegExp(`answered more than ${MAX_ANSWER} bytes, the most gw reads from another server \\(GW_MAX_UPSTREAM_ANSWER_BYTES\\)`));
      } finally {
        await flood.close();
      }
    });
  }
});
