/**
 * An MCP server built with the MCP SDK (McpServer, Streamable HTTP with sessions) that talks back:
 * tools ask the client for a sampling or an elicitation, or send a log message, on their own
 * stream; a tool names the client capabilities it was offered; a tool announces a resource update
 * and a sampling request outside any request (the session's GET stream); a tool waits until
 * cancelled. Resources are subscribable; logging is on. It records subscriptions and cancellations.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, ElicitResultSchema, SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface RelayUpstream {
  url: string;
  subscriptions: string[];
  /** Calls of `wait` begun, and ended by a cancellation. */
  started: number;
  cancelled: number;
  /** What the client answered to the sampling sent on the GET stream. */
  streamSamplings: string[];
  /** Connections opened to the server, and the tools/call requests it served (its answers are SSE streams). */
  connections: number;
  toolCalls: number;
  close(): Promise<void>;
}

function build(state: RelayUpstream): McpServer {
  const server = new McpServer({ name: 'relay-upstream', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
  server.registerTool('ask', { description: 'Asks the client for a sampling', inputSchema: {} }, async (_args, extra) => {
    try {
      const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } }, CreateMessageResultSchema);
      return { content: [{ type: 'text', text: `sampled: ${(answer.content as { text?: string }).text ?? ''}` }] };
    } catch (error) {
      return { content: [{ type: 'text', text: `refused: ${(error as Error).message}` }], isError: true };
    }
  });
  server.registerTool('elicit', { description: 'Asks the client for input', inputSchema: {} }, async (_args, extra) => {
    try {
      const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } }, ElicitResultSchema);
      return { content: [{ type: 'text', text: `elicited: ${answer.action}` }] };
    } catch (error) {
      return { content: [{ type: 'text', text: `refused: ${(error as Error).message}` }], isError: true };
    }
  });
  server.registerTool('log', { description: 'Sends a log message on this request, then answers', inputSchema: {} }, async (_args, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'a log line' } });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerTool('offered', { description: 'Names the client capabilities gw offered this server', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: Object.keys(server.server.getClientCapabilities() ?? {}).sort().join(',') }],
  }));
  server.registerTool('announce', { description: 'Updates a resource and asks for a sampling, outside this request', inputSchema: {} }, async () => {
    await server.server.sendResourceUpdated({ uri: 'memo://a' });
    void server.server
      .createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'later' } }], maxTokens: 5 })
      .then((answer) => state.streamSamplings.push((answer.content as { text?: string }).text ?? ''))
      .catch((error: Error) => state.streamSamplings.push(`error: ${error.message}`));
    return { content: [{ type: 'text', text: 'announced' }] };
  });
  server.registerTool('wait', { description: 'Waits until cancelled', inputSchema: {} }, async (_args, extra) => {
    state.started++;
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
    state.cancelled++;
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerResource('a', 'memo://a', { description: 'A memo' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'memo a' }] }));
  server.registerResource('secret', 'memo://secret', { description: 'A secret memo' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'secret' }] }));
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    state.subscriptions.push(request.params.uri);
    return {};
  });
  return server;
}

export async function startRelayUpstream(): Promise<RelayUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state: RelayUpstream = { url: '', subscriptions: [], started: 0, cancelled: 0, streamSamplings: [], connections: 0, toolCalls: 0, close: async () => undefined };
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.includes('"tools/call"')) state.toolCalls++;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, created) });
      transport = created;
      await build(state).connect(transport);
    }
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  http.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
  return state;
}
