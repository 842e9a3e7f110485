import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { reportReady } from './child-ipc.js';

// An MCP server built with the SDK, sessions on, JSON answers, one cheap tool: what the MCP row
// measures is the hop through gw, not the tool.
const sessions = new Map<string, StreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: 'bench-mcp', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

const http = createServer({ keepAliveTimeout: 65_000 }, async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const id = req.headers['mcp-session-id'];
  let transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (!transport) {
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
    });
    transport = created;
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, '127.0.0.1', () => reportReady((http.address() as AddressInfo).port));
