/**
 * Hot-path HTTP to agents and MCP servers (gateway/outbound/pooled-http.ts): kept-alive connections, and the
 * outbound guard at connect time for hosts nobody trusted: a name answering a non-public address
 * (now, or after it was saved: DNS rebinding) is never connected to, nor is a redirect to one.
 * DNS is a fake resolver; all traffic stays on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../core/errors.js';
import { PooledHttp } from '../../gateway/outbound/pooled-http.js';
import { OutboundGuard } from '../../gateway/outbound/outbound-guard.js';

interface Loopback {
  port: number;
  requests: IncomingMessage[];
  connections: number;
  server: Server;
}

async function startLoopback(answer: (req: IncomingMessage, res: import('node:http').ServerResponse, port: number) => void): Promise<Loopback> {
  const loopback = { port: 0, requests: [] as IncomingMessage[], connections: 0 } as Loopback;
  loopback.server = createServer((req, res) => {
    loopback.requests.push(req);
    req.resume();
    req.on('end', () => answer(req, res, loopback.port));
  });
  loopback.server.on('connection', () => loopback.connections++);
  await new Promise<void>((resolve) => loopback.server.listen(0, '127.0.0.1', resolve));
  loopback.port = (loopback.server.address() as AddressInfo).port;
  return loopback;
}

const post = (http: PooledHttp, url: string) => http.post(url, { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage"}', signal: new AbortController().signal }, { code: 'agent_url_refused', source: 'The agent URL' });

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ApiError, `refused with an ApiError, got ${String(error)}`);
  return error;
}

describe('HTTP to agents and MCP servers (pooled-http.ts)', () => {
  let agent: Loopback;
  before(async () => {
    agent = await startLoopback((req, res, port) => {
      if (req.url === '/redirect-private') {
        res.writeHead(307, { location: `http://127.0.0.2:${port}/` }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
  });
  after(async () => {
    agent.server.closeAllConnections();
    await new Promise((resolve) => agent.server.close(resolve));
  });

  test('a trusted agent is reached as named, calls sharing one kept-alive connection', async () => {
    const http = new PooledHttp(new OutboundGuard(['127.0.0.1'], 1_000_000));
    try {
      const before = { requests: agent.requests.length, connections: agent.connections };
      for (let i = 0; i < 3; i++) {
        const answer = await post(http, `http://127.0.0.1:${agent.port}/`);
        assert.equal(answer.statusCode, 200);
        assert.deepEqual(await answer.body.json(), { jsonrpc: '2.0', id: 1, result: {} });
        // undici checks an idle kept-alive socket one turn of the event loop before reusing it (a call
        // sent sooner opens a second connection); door calls are always further apart than that.
        await new Promise(setImmediate);
      }
      assert.equal(agent.requests.length - before.requests, 3);
      assert.equal(agent.connections - before.connections, 1);
    } finally {
      await http.close();
    }
  });

  test('an untrusted name answering a loopback address is refused at connect, nothing sent', async () => {
    const resolved: string[] = [];
    const http = new PooledHttp(new OutboundGuard([], 1_000_000, async (host) => (resolved.push(host), ['127.0.0.1'])));
    try {
      const before = agent.requests.length;
      const error = await refusal(post(http, `http://agent.example.com:${agent.port}/`));
      assert.equal(error.code, 'agent_url_refused');
      assert.deepEqual(resolved, ['agent.example.com'], 'the name is resolved when connecting');
      assert.equal(agent.requests.length, before);
    } finally {
      await http.close();
    }
  });

  test("a refusal carries the caller's code and words (the MCP gateway's, here), at vetting and at connect", async () => {
    const http = new PooledHttp(new OutboundGuard([], 1_000_000, async () => ['10.0.0.5']));
    const naming = { code: 'unsafe_mcp_url', source: 'The MCP server URL' };
    const send = (url: string) => http.post(url, { headers: {}, body: '{}' }, naming);
    try {
      const vetted = await refusal(send(`http://127.0.0.1:${agent.port}/mcp`));
      assert.equal(vetted.code, 'unsafe_mcp_url');
      assert.match(vetted.message, /^The MCP server URL /);
      assert.equal((await refusal(send(`http://mcp.example.com:${agent.port}/mcp`))).code, 'unsafe_mcp_url');
    } finally {
      await http.close();
    }
  });

  test('a name rebound so that one of its answers is private is refused, whatever the others are', async () => {
    const http = new PooledHttp(new OutboundGuard([], 1_000_000, async () => ['203.0.113.10', '10.0.0.5']));
    try {
      assert.equal((await refusal(post(http, `http://agent.example.com:${agent.port}/`))).code, 'agent_url_refused');
    } finally {
      await http.close();
    }
  });

  test('untrusted IP literals and reserved names are refused before any connection', async () => {
    const http = new PooledHttp(new OutboundGuard([], 1_000_000, async () => assert.fail('no DNS for literals and reserved names')));
    try {
      const before = { requests: agent.requests.length, connections: agent.connections };
      for (const url of [`http://127.0.0.1:${agent.port}/`, `http://localhost:${agent.port}/`, `http://169.254.169.254/`]) {
        assert.equal((await refusal(post(http, url))).code, 'agent_url_refused', url);
      }
      assert.deepEqual({ requests: agent.requests.length, connections: agent.connections }, before);
    } finally {
      await http.close();
    }
  });

  test('a redirect from a trusted agent to a private address is refused', async () => {
    const http = new PooledHttp(new OutboundGuard([`127.0.0.1:${agent.port}`], 1_000_000));
    try {
      const before = agent.requests.length;
      assert.equal((await refusal(post(http, `http://127.0.0.1:${agent.port}/redirect-private`))).code, 'agent_url_refused');
      assert.equal(agent.requests.length - before, 1, 'only the first hop was sent');
    } finally {
      await http.close();
    }
  });
});
