/**
 * A real MCP server built with the MCP SDK (McpServer + Streamable HTTP, sessions on; or the
 * older HTTP+SSE transport) on a loopback port: tools with arguments, a slow tool, a failing tool, a prompt, a resource and a
 * resource template. It records the headers and tool calls it receives.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface FakeMcpServer {
  url: string;
  /** Headers of every HTTP request received. */
  requests: IncomingHttpHeaders[];
  /** Tool names called, in order. */
  toolCalls: Array<{ name: string; args: unknown }>;
  /** Ends the slow tool's wait (each call waits until released, or its abort). */
  releaseSlow(): void;
  close(): Promise<void>;
}

export interface FakeMcpOptions {
  name?: string;
  /** Stateless: no Mcp-Session-Id, a fresh server per request. */
  stateless?: boolean;
  /** The older HTTP+SSE transport instead: `GET /sse` opens the stream, `POST /messages?sessionId=` carries requests. */
  sse?: boolean;
  /** Answers 401 to any request whose headers this refuses (a bearer token check, say). */
  authorize?: (headers: IncomingHttpHeaders) => boolean;
  /** Adds a tool `big` whose answer is `bytes` long (size bound tests). */
  bigTool?: boolean;
}

function buildServer(name: string, state: { toolCalls: FakeMcpServer['toolCalls']; slowWaiters: Array<() => void> }, bigTool = false): McpServer {
  const server = new McpServer({ name, version: '1.2.3' });
  if (bigTool) {
    server.registerTool('big', { description: 'Answers as many bytes as asked', inputSchema: { bytes: z.number() } }, async ({ bytes }) => {
      state.toolCalls.push({ name: 'big', args: { bytes } });
      return { content: [{ type: 'text', text: 'x'.repeat(bytes) }] };
    });
  }
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    state.toolCalls.push({ name: 'add', args: { a, b } });
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: { text: z.string() } }, async ({ text }) => {
    state.toolCalls.push({ name: 'echo', args: { text } });
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('delete_everything', { description: 'A dangerous tool', inputSchema: {} }, async () => {
    state.toolCalls.push({ name: 'delete_everything', args: {} });
    return { content: [{ type: 'text', text: 'deleted' }] };
  });
  server.registerTool('slow', { description: 'Waits until released', inputSchema: {} }, async (_args, extra) => {
    state.toolCalls.push({ name: 'slow', args: {} });
    await new Promise<void>((resolve) => {
      state.slowWaiters.push(resolve);
      extra.signal.addEventListener('abort', () => resolve());
    });
    return { content: [{ type: 'text', text: 'finally' }] };
  });
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => {
    state.toolCalls.push({ name: 'fail', args: {} });
    throw new Error('the tool broke');
  });
  server.registerPrompt('greeting', { description: 'Greets someone', argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
  }));
  server.registerResource('about', 'info://about', { description: 'About this server', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: `about ${name}` }],
  }));
  server.registerResource('doc', new ResourceTemplate('doc://{id}', { list: undefined }), { description: 'A document by id' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, text: `document ${String(id)}` }],
  }));
  return server;
}

export async function startFakeMcpServer(options: FakeMcpOptions = {}): Promise<FakeMcpServer> {
  const name = options.name ?? 'fake-mcp';
  const state = { toolCalls: [] as FakeMcpServer['toolCalls'], slowWaiters: [] as Array<() => void> };
  const requests: IncomingHttpHeaders[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const http: Server = createServer(async (req, res) => {
    requests.push(req.headers);
    if (options.authorize && !options.authorize(req.headers)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (options.sse && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sseSessions.set(transport.sessionId, transport);
      res.on('close', () => sseSessions.delete(transport.sessionId));
      await buildServer(name, state, options.bigTool).connect(transport);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    if (options.sse) {
      const transport = sseSessions.get(new URL(req.url ?? '/', 'http://fake').searchParams.get('sessionId') ?? '');
      if (!transport) res.writeHead(404).end('Session not found');
      else await transport.handlePostMessage(req, res, body);
      return;
    }
    if (options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await buildServer(name, state, options.bigTool).connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === 'string') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      transport = created;
      await buildServer(name, state, options.bigTool).connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/${options.sse ? 'sse' : 'mcp'}`,
    requests,
    toolCalls: state.toolCalls,
    releaseSlow() {
      for (const release of state.slowWaiters.splice(0)) release();
    },
    async close() {
      for (const release of state.slowWaiters.splice(0)) release();
      for (const transport of [...sessions.values(), ...sseSessions.values()]) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
