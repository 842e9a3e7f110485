/**
 * The common case without the MCP SDK: one `tools/call` in an open session whose MCP server speaks
 * Streamable HTTP. gw takes the message as the handler parsed it, puts the tool-call pipeline on it
 * (tool-call.ts: enablement, limits, guardrails, the log row) and forwards it as it came, the
 * client's id and progress token kept (the upstream session is this client's alone), with one POST
 * through the outbound guard. What the upstream sends before its answer reaches the client as it
 * comes (progress, log messages, server-to-client requests relayed as upstream-relay.ts does) on an
 * SSE answer opened only then; an answer with nothing before it goes back as one JSON body.
 * Everything else takes the SDK's path (mcp-gateway.ts).
 */
import type { ServerResponse } from 'node:http';
import {
  ErrorCode,
  isJSONRPCRequest,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ClientCapabilities,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Call } from '../../core/call.js';
import { sendJson } from '../../core/respond.js';
import type { McpSessionRecord } from '../../store/repositories/mcp-sessions.js';
import { sseData } from '../a2a/sse-events.js';
import { answerSource, cappedStream, readCappedBody } from '../outbound/answer-cap.js';
import type { PooledAnswer } from '../outbound/pooled-http.js';
import { notRelayed, type ClientFeatureRelays } from './client-features.js';
import type { McpTarget } from './mcp-target.js';
import { invalidParamsOf } from './request-checks.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { runToolCall, type ToolCallParams } from './tool-call.js';
import { relayServerRequest, type DownstreamLink } from './upstream-relay.js';

type RequestId = string | number;
type RpcErrorBody = { code: number; message: string; data?: unknown };
interface Incoming {
  id?: RequestId;
  method?: string;
  params?: { progressToken?: unknown; requestId?: unknown };
  result?: unknown;
  error?: RpcErrorBody;
}

/**
 * The tools/call this POST carries when the direct path serves it: a single, well-formed call to a
 * Streamable HTTP server. A request the SDK's server transport would refuse (Accept, Content-Type,
 * an unsupported MCP-Protocol-Version) goes the SDK's way, which answers it.
 */
export function directToolCall(call: Call, target: McpTarget, messages: JSONRPCMessage[]): JSONRPCRequest | undefined {
  const [message] = messages;
  if (messages.length !== 1 || !message || !isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  if (target.integration.transport !== 'http') return undefined;
  const { headers } = call.req;
  const accept = String(headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!String(headers['content-type'] ?? '').includes('application/json')) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return undefined;
  return invalidParamsOf(message) ? undefined : message;
}

/** The way back of a direct call: one JSON answer, or an SSE stream once a message comes before it. */
export class DirectAnswer implements DownstreamLink {
  current: RequestId | undefined;
  private streaming = false;

  constructor(
    private readonly res: ServerResponse,
    readonly sessionId: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly relays: ClientFeatureRelays,
  ) {}

  private get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  async send(message: JSONRPCMessage): Promise<boolean> {
    return this.event(message);
  }

  private event(message: unknown): boolean {
    if (!this.open) return false;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  end(message: unknown): void {
    if (!this.open) return;
    if (!this.streaming) return sendJson(this.res, 200, message);
    this.event(message);
    this.res.end();
  }
}

/** A JSON-RPC error as the SDK answers a thrown one (an McpError's message without its code repeated). */
function errorBody(error: unknown, stripCode: boolean): RpcErrorBody {
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  const text = typeof message === 'string' ? message : 'Internal error';
  return {
    code: typeof code === 'number' && Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
    message: stripCode && error instanceof McpError ? text.replace(/^MCP error -?\d+: /, '') : text,
    ...(data === undefined ? {} : { data }),
  };
}

/** Serves the call; the caller has admitted it past the rate limits (mcp-gateway.ts). */
export async function serveDirectToolCall(context: McpToolCallContext, session: McpSessionRecord, request: JSONRPCRequest, answer: DirectAnswer): Promise<void> {
  answer.current = request.id;
  try {
    const result = await runToolCall(context, request.params as ToolCallParams, (params) => forwardToolCall(context, session, request, params, answer));
    answer.end({ jsonrpc: '2.0', id: request.id, result });
  } catch (error) {
    answer.end({ jsonrpc: '2.0', id: request.id, error: errorBody(error, true) });
  }
}

/** Sends the call upstream and reads its answer, relaying what comes before it; fails as the SDK's client would. */
async function forwardToolCall(context: McpToolCallContext, session: McpSessionRecord, request: JSONRPCRequest, params: ToolCallParams, link: DirectAnswer): Promise<CallToolResult> {
  const { call, target } = context;
  const { mcpUpstreams, mcpClientRelay: relay } = call.services;
  const timeoutMs = mcpUpstreams.timeoutMs;
  const upstreamSession = { sessionId: session.upstream_session_id, protocolVersion: session.protocol_version };
  const post = (message: unknown, signal?: AbortSignal) => mcpUpstreams.post(target.integration, upstreamSession, JSON.stringify(message), signal);
  // Answers and cancellations to the upstream: best effort, their 202 read and dropped.
  const tell = (message: unknown) => void post(message).then((response) => response.body.dump(), () => undefined);
  const id = request.id;
  const progressToken = (request.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;

  // Cancelled by the client (notifications/cancelled, on any instance) or by the timeout: the
  // upstream is told, as the SDK's client tells it. A client that goes away only closes the
  // request's connection (Streamable HTTP: a disconnection is no cancellation).
  const controller = new AbortController();
  let finished = false;
  const abort = (reason: unknown, cancel: boolean) => {
    if (finished || controller.signal.aborted) return;
    controller.abort(reason);
    if (cancel) tell({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String((reason as { message?: unknown }).message ?? reason) } });
  };
  const tracked = relay.track(session.id, id);
  tracked.signal.addEventListener('abort', () => abort(tracked.signal.reason, true));
  const clientGone = () => abort(new McpError(ErrorCode.ConnectionClosed, 'The MCP client went away'), false);
  call.res.once('close', clientGone);
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }), true), timeoutMs);
  };
  arm();
  // Server-to-client requests being relayed, by the upstream's id (its notifications/cancelled stops one).
  const serving = new Map<RequestId, AbortController>();

  /** One message from the upstream; the answer to the call when it is that. */
  const take = (message: Incoming): Incoming | undefined => {
    if (message.method === undefined) return message.id === id ? message : undefined;
    if (message.id !== undefined) {
      const requestId = message.id;
      const stop = new AbortController();
      serving.set(requestId, stop);
      relayServerRequest(link, relay, timeoutMs, { method: message.method, params: message.params }, AbortSignal.any([stop.signal, controller.signal]))
        .then(
          (result) => ({ jsonrpc: '2.0', id: requestId, result }),
          (error: unknown) => ({ jsonrpc: '2.0', id: requestId, error: errorBody(error, false) }),
        )
        .then(tell)
        .finally(() => serving.delete(requestId));
      return undefined;
    }
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') serving.get(requestId)?.abort(new Error('Cancelled by the MCP server'));
    } else if (message.method === 'notifications/progress') {
      // Only the call's own progress, which keeps it alive, as the SDK's client does.
      if (progressToken === undefined || message.params?.progressToken !== progressToken) return undefined;
      arm();
      void link.send(message as JSONRPCMessage);
    } else if (!notRelayed(message.method, link.relays)) {
      void link.send(message as JSONRPCMessage);
    }
    return undefined;
  };

  try {
    const response = await post({ jsonrpc: '2.0', id, method: 'tools/call', params }, controller.signal);
    const answered = await readAnswer(response, take, call.services.outbound.maxAnswerBytes, answerSource(target.integration.url));
    if (answered.error) throw new McpError(answered.error.code, answered.error.message, answered.error.data);
    const result = answered.result as CallToolResult | undefined;
    if (!result || typeof result !== 'object') throw new McpError(ErrorCode.InternalError, 'The MCP server answered tools/call without a result');
    return result.content === undefined ? { ...result, content: [] } : result;
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    finished = true;
    clearTimeout(timer);
    tracked.done();
    call.res.off('close', clientGone);
    for (const stop of serving.values()) stop.abort(new Error('The request was answered'));
  }
}

/** The answer in a JSON body or an SSE stream (read within `maxBytes`), each message before it handed to `take`. */
async function readAnswer(response: PooledAnswer, take: (message: Incoming) => Incoming | undefined, maxBytes: number, where: string): Promise<Incoming> {
  const type = String(response.headers['content-type'] ?? '');
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const text = await readCappedBody(response.body, response.headers, maxBytes, where).then(String, () => '');
    throw new Error(`Streamable HTTP error: Error POSTing to endpoint: ${text || `HTTP ${response.statusCode}`}`);
  }
  if (type.includes('text/event-stream')) {
    // Leaving the loop once the answer came destroys the body: what may follow is dropped. The
    // connection stays in the pool when the stream's end came with the answer (servers end it then).
    for await (const data of sseData(cappedStream(response.body, maxBytes, where))) {
      const answer = parsed(data).map(take).find(Boolean);
      if (answer) return answer;
    }
    throw new McpError(ErrorCode.ConnectionClosed, 'The MCP server ended its answer stream without answering');
  }
  if (type.includes('application/json')) {
    const answer = parsed((await readCappedBody(response.body, response.headers, maxBytes, where)).toString('utf8'))
      .map(take)
      .find(Boolean);
    if (answer) return answer;
    throw new McpError(ErrorCode.ConnectionClosed, 'The MCP server answered without answering the call');
  }
  response.body.destroy();
  throw new Error(`Unexpected content type: ${type}`);
}

function parsed(text: string): Incoming[] {
  try {
    const value = JSON.parse(text) as unknown;
    return (Array.isArray(value) ? value : [value]).filter((message): message is Incoming => typeof message === 'object' && message !== null);
  } catch {
    return [];
  }
}
