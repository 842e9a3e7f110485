/**
 * Our MCP server for the official conformance suite's server scenarios
 * (test/mcp/mcp-conformance.test.ts runs the suite against it directly and through gw). Built on
 * the MCP SDK: one McpServer and one Streamable HTTP transport per session, on 127.0.0.1 at
 * /mcp (port $PORT, 0 picks a free one). It prints `listening <url>` once ready.
 *
 * Requests whose Host or Origin is not a loopback name answer 403: the suite's DNS-rebinding
 * scenario expects a local server to refuse them.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { registerScenarioPrompts } from './scenario-prompts.js';
import { registerScenarioResources } from './scenario-resources.js';
import type { ScenarioSession } from './scenario-session.js';
import { registerScenarioTools } from './scenario-tools.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function newSessionServer(): McpServer {
  const session: ScenarioSession = { subscriptions: new Set() };
  const server = new McpServer({ name: 'gw-conformance-scenarios', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
  // Our own level handler: the tools filter their log messages by it (they send them on the call's stream, not through the SDK's sendLoggingMessage).
  server.server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel = request.params.level;
    return {};
  });
  registerScenarioTools(server, session);
  registerScenarioResources(server, session);
  registerScenarioPrompts(server);
  return server;
}

function hostIsLoopback(value: string): boolean {
  try {
    return LOOPBACK_NAMES.has(new URL(value).hostname);
  } catch {
    return false;
  }
}

function answerError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return answerError(res, 404, -32601, 'the MCP endpoint is /mcp');
  const origin = req.headers.origin;
  if (!hostIsLoopback(`http://${req.headers.host ?? ''}`) || (origin !== undefined && !hostIsLoopback(origin))) {
    return answerError(res, 403, -32600, `refused: Host ${req.headers.host ?? '(none)'}, Origin ${origin ?? '(none)'} (loopback only)`);
  }

  let body: unknown;
  if (req.method === 'POST') {
    try {
      body = await readJson(req);
    } catch {
      return answerError(res, 400, -32700, 'the body is not JSON');
    }
  }

  const sessionId = req.headers['mcp-session-id'];
  if (typeof sessionId === 'string') {
    const transport = sessions.get(sessionId);
    if (!transport) return answerError(res, 404, -32001, `no session ${sessionId}`);
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== 'POST' || ![body].flat().some((message) => isInitializeRequest(message))) {
    return answerError(res, 400, -32600, 'no Mcp-Session-Id: only an initialize request opens a session');
  }
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await newSessionServer().connect(transport);
  return transport.handleRequest(req, res, body);
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) answerError(res, 500, -32603, error instanceof Error ? error.message : String(error));
    else res.destroy();
  });
});
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
