/**
 * The MCP gateway over Streamable HTTP at `{base}/{slug}/mcp`. gw keeps the session itself, in the
 * store, so consecutive requests of one session may land on any instance: the session names the
 * upstream session, which every instance resumes. Two ways serve a POST:
 * - a single `tools/call` in a session of a Streamable HTTP server, the common case, is forwarded
 *   directly, without the SDK (direct-tool-call.ts);
 * - everything else (initialize, the other methods, batches, servers on the older SSE transport, a
 *   request the SDK's transport refuses) by the MCP SDK's server transport (stateless mode) over a
 *   Server built for the request, which reaches the upstream with the SDK's client.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  ErrorCode,
  isJSONRPCNotification,
  isJSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import { ApiError } from '../../core/errors.js';
import { sendJson } from '../../core/respond.js';
import type { McpSessionRecord } from '../../store/repositories/mcp-sessions.js';
import { readGatewayHeaders } from '../chat/gateway-headers.js';
import { MCP_SESSIONS_TOPIC } from './mcp-directory.js';
import { principalKeyOf, resolveMcpTarget, type McpTarget } from './mcp-target.js';
import { buildProxyServer } from './proxy-server.js';
import { DirectAnswer, directToolCall, serveDirectToolCall } from './direct-tool-call.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { assertToolEnabled, checkToolRateLimits, logToolCall, rateLimitedError } from './tool-call.js';
import { invalidParamsOf, invalidRequestOf } from './request-checks.js';
import { relayClientStream } from './client-stream.js';
import { offeredUpstream, relaysOf } from './client-features.js';
import { upstreamFailure } from './upstream-failure.js';
import type { UpstreamConnection } from './upstream-client.js';
import { postLink, relayUpstreamMessages, upstreamRequestOptions, type DownstreamLink } from './upstream-relay.js';

const SESSION_HEADER = 'mcp-session-id';

/** A JSON-RPC error answered at the HTTP level (before the SDK server runs). */
function sendRpcError(call: Call, status: number, code: number, message: string, id: unknown = null, headers: Record<string, string> = {}): void {
  // An McpError's message carries its code again ("MCP error -32001: ..."): the code field says it.
  sendJson(call.res, status, { jsonrpc: '2.0', error: { code, message: message.replace(/^MCP error -?\d+: /, '') }, id }, headers);
}

function messagesOf(body: unknown): JSONRPCMessage[] {
  return (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
}

const isInitialize = (messages: JSONRPCMessage[]) => messages.some((message) => isJSONRPCRequest(message) && message.method === 'initialize');

/** Reads the session a request names, started before the target is resolved (the two are independent reads). */
function lookUpSession(call: Call): Promise<McpSessionRecord | undefined> {
  const header = call.req.headers[SESSION_HEADER];
  const id = Array.isArray(header) ? header[0] : header;
  const lookup = id ? call.services.mcpDirectory.session(id) : Promise.resolve(undefined);
  // Awaited only once the target resolves: a failure meanwhile must not go unhandled.
  lookup.catch(() => undefined);
  return lookup;
}

/** The session a request names, if it is this caller's on this server. */
async function sessionOf(call: Call, principal: Principal, target: McpTarget, lookup = lookUpSession(call)): Promise<McpSessionRecord | undefined> {
  const session = await lookup;
  if (!session || session.mcp_server_id !== target.server.id || session.principal_key !== principalKeyOf(principal)) return undefined;
  return session;
}

function contextFor(call: Call, principal: Principal, target: McpTarget, link: DownstreamLink, connect: () => Promise<UpstreamConnection>): McpToolCallContext & { close(): Promise<void> } {
  const { mcpClientRelay: relay, mcpUpstreams } = call.services;
  let connecting: Promise<UpstreamConnection> | undefined;
  const connectAndRelay = async () => {
    const upstream = await connect();
    relayUpstreamMessages(upstream, link, relay, mcpUpstreams.timeoutMs);
    return upstream;
  };
  return {
    call,
    principal,
    target,
    metadata: readGatewayHeaders(call.req.headers).metadata,
    admitted: false,
    link,
    upstream: () => (connecting ??= connectAndRelay()),
    requestOptions: (request, extra) => upstreamRequestOptions(link, relay, mcpUpstreams.timeoutMs, request, extra),
    async close() {
      if (connecting) await (await connecting.catch(() => undefined))?.close().catch(() => undefined);
    },
  };
}

/** Methods whose upstream may send notifications, progress or requests before it answers: their answer is an SSE stream. */
const STREAMED_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/** Whether the answer should be a stream (a request that may be served with messages) rather than one JSON body. */
function answersAsStream(messages: JSONRPCMessage[]): boolean {
  // A request whose params are wrong is answered at once, as JSON.
  return messages.some((message) => isJSONRPCRequest(message) && STREAMED_METHODS.has(message.method) && !invalidParamsOf(message));
}

/**
 * A POST of only answers and notifications: the answers (to sampling, elicitation, roots) and
 * cancellations go to the request they concern, wherever it waits; `roots/list_changed` goes
 * to the upstream. Answers 202, as Streamable HTTP wants.
 */
async function relayClientMessages(context: ReturnType<typeof contextFor>, sessionId: string, messages: JSONRPCMessage[]): Promise<void> {
  const relay = context.call.services.mcpClientRelay;
  for (const message of messages) {
    if (!isJSONRPCNotification(message)) await relay.route(sessionId, message);
    else if (message.method === 'notifications/cancelled') await relay.route(sessionId, message);
    else if (message.method === 'notifications/roots/list_changed') {
      const upstream = await context.upstream().catch(() => undefined);
      await upstream?.client.notification({ method: message.method }).catch(() => undefined);
    }
  }
  context.call.res.writeHead(202).end();
}

const clientCapabilitiesOf = (session: McpSessionRecord): ClientCapabilities => {
  try {
    return session.client_capabilities ? (JSON.parse(session.client_capabilities) as ClientCapabilities) : {};
  } catch {
    return {};
  }
};

/**
 * A single tools/call is checked against the rate limits before the SDK server runs, so a refusal
 * can answer HTTP 429 (with the JSON-RPC error); inside a batch the error alone says it.
 */
async function admitSingleToolCall(context: McpToolCallContext, messages: JSONRPCMessage[]): Promise<boolean> {
  const [message] = messages;
  if (messages.length !== 1 || !message || !isJSONRPCRequest(message) || message.method !== 'tools/call') return true;
  const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof params.name !== 'string') return true;
  try {
    assertToolEnabled(context, params.name);
  } catch {
    return true; // the SDK server answers that refusal (and logs it)
  }
  const startedAt = context.call.services.now();
  try {
    await checkToolRateLimits(context);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 429) throw error;
    logToolCall(context, { tool: params.name, arguments: params.arguments ?? {}, startedAt, status: 429, error: { code: error.code, message: error.message, type: error.type }, guardrails: [] });
    const rpc = rateLimitedError(error);
    sendJson(context.call.res, 429, { jsonrpc: '2.0', error: { code: rpc.code, message: error.message, data: rpc.data }, id: message.id }, error.headers);
    return false;
  }
  context.admitted = true;
  return true;
}

const idOf = (message: unknown) => {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/**
 * Answers, before any upstream is reached, a body that is not JSON-RPC (-32600, HTTP 400) and an
 * initialize whose params are wrong (-32602); the other methods' params are checked by the server
 * (request-checks.ts). Returns whether it answered.
 */
function refuseInvalidMessages(call: Call, messages: unknown[]): boolean {
  if (messages.length === 0) {
    sendRpcError(call, 400, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
    return true;
  }
  for (const message of messages) {
    const invalid = invalidRequestOf(message);
    if (invalid) {
      sendRpcError(call, 400, invalid.code, invalid.message, idOf(message));
      return true;
    }
  }
  const initialize = messages.find((message) => isJSONRPCRequest(message as JSONRPCMessage) && (message as { method: string }).method === 'initialize');
  const invalid = initialize ? invalidParamsOf(initialize as { method: string }) : undefined;
  if (invalid) sendRpcError(call, 200, invalid.code, invalid.message, idOf(initialize));
  return invalid !== undefined;
}

export async function serveMcpPost(call: Call, principal: Principal, slug: string, body: unknown): Promise<void> {
  const { store, mcpUpstreams, mcpDirectory, now } = call.services;
  const messages = messagesOf(body);
  const initializing = isInitialize(messages);
  const sessionLookup = initializing ? undefined : lookUpSession(call);
  const target = await resolveMcpTarget(mcpDirectory, principal, slug);
  if (refuseInvalidMessages(call, messages)) return;
  let context: ReturnType<typeof contextFor>;
  let declared: Record<string, unknown> | null = target.integration.capability_flags;
  let instructions: string | undefined;
  // The SDK server transport answering this POST, once made: the way back to the client.
  let answering: StreamableHTTPServerTransport | undefined;

  if (initializing) {
    const initialize = messages.find((message) => isJSONRPCRequest(message) && message.method === 'initialize') as unknown as { params: { protocolVersion: string; capabilities: ClientCapabilities } };
    const clientCapabilities = initialize.params.capabilities ?? {};
    const requestedVersion = initialize.params.protocolVersion;
    let upstream: UpstreamConnection;
    try {
      upstream = await mcpUpstreams.connect(target.integration, undefined, { clientCapabilities: offeredUpstream(clientCapabilities, relaysOf(target.server)) });
    } catch (error) {
      const failure = upstreamFailure(slug, error);
      const request = messages.find(isJSONRPCRequest);
      sendRpcError(call, 502, failure.code, failure.message, request?.id ?? null);
      return;
    }
    const at = new Date(now()).toISOString();
    const session: McpSessionRecord = {
      id: randomUUID(),
      mcp_server_id: target.server.id,
      organisation_id: principal.organisationId,
      workspace_id: target.server.workspace_id,
      principal_key: principalKeyOf(principal),
      user_id: principal.userId,
      upstream_session_id: upstream.sessionId ?? null,
      protocol_version: upstream.protocolVersion ?? null,
      client_capabilities: JSON.stringify(clientCapabilities),
      // What the SDK's server answers the client: its version when supported, else the latest.
      client_protocol_version: SUPPORTED_PROTOCOL_VERSIONS.includes(requestedVersion) ? requestedVersion : LATEST_PROTOCOL_VERSION,
      created_at: at,
      updated_at: at,
    };
    await store.mcpSessions.create(session);
    call.res.setHeader(SESSION_HEADER, session.id);
    declared = (upstream.client.getServerCapabilities() as Record<string, unknown> | undefined) ?? declared;
    instructions = upstream.client.getInstructions();
    const link = postLink(session.id, clientCapabilities, relaysOf(target.server), () => answering);
    context = contextFor(call, principal, target, link, async () => upstream);
    // Taken now, so the connection closes with the request even when nothing else asks for it.
    await context.upstream();
  } else {
    const session = await sessionOf(call, principal, target, sessionLookup);
    if (!session) {
      const named = call.req.headers[SESSION_HEADER] !== undefined;
      // Streamable HTTP: a request without a session is a bad request; an unknown (or ended) session is 404, and the client starts a new one.
      sendRpcError(call, named ? 404 : 400, named ? -32001 : ErrorCode.InvalidRequest, named ? 'Session not found' : 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    call.res.setHeader(SESSION_HEADER, session.id);
    const connect = () => mcpUpstreams.connect(target.integration, { sessionId: session.upstream_session_id, protocolVersion: session.protocol_version });
    const direct = directToolCall(call, target, messages);
    if (direct) {
      const answer = new DirectAnswer(call.res, session.id, clientCapabilitiesOf(session), relaysOf(target.server));
      const directContext = contextFor(call, principal, target, answer, connect);
      if (await admitSingleToolCall(directContext, messages)) await serveDirectToolCall(directContext, session, direct, answer);
      return;
    }
    const link = postLink(session.id, clientCapabilitiesOf(session), relaysOf(target.server), () => answering);
    context = contextFor(call, principal, target, link, connect);
    if (!messages.some(isJSONRPCRequest)) {
      try {
        await relayClientMessages(context, session.id, messages);
      } finally {
        await context.close();
      }
      return;
    }
    // A batch (protocol versions before 2025-06-18) may carry answers and cancellations beside
    // requests: those go where they are awaited, the rest to the server.
    const awaitedElsewhere = messages.filter((message) => !isJSONRPCRequest(message) && (!isJSONRPCNotification(message) || message.method === 'notifications/cancelled'));
    for (const message of awaitedElsewhere) await call.services.mcpClientRelay.route(session.id, message);
    if (awaitedElsewhere.length) body = messages.filter((message) => !awaitedElsewhere.includes(message));
  }

  // A client that goes away mid-answer: gw's connection to the upstream for it is closed.
  call.res.once('close', () => void context.close());
  try {
    if (!(await admitSingleToolCall(context, messages))) return;
    const server = buildProxyServer(context, declared, instructions);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !answersAsStream(messages) });
    answering = transport;
    await server.connect(transport);
    try {
      await transport.handleRequest(call.req, call.res, body);
    } finally {
      await server.close().catch(() => undefined);
    }
  } finally {
    await context.close();
  }
}

/** Ends the session here and, best effort, the upstream session it holds. */
export async function serveMcpDelete(call: Call, principal: Principal, slug: string): Promise<void> {
  const { store, mcpUpstreams, mcpDirectory } = call.services;
  const target = await resolveMcpTarget(mcpDirectory, principal, slug);
  const session = await sessionOf(call, principal, target);
  if (!session) {
    sendRpcError(call, 404, -32001, 'Session not found');
    return;
  }
  await store.mcpSessions.delete(session.id);
  await call.services.bus.publish(MCP_SESSIONS_TOPIC, session.id);
  if (session.upstream_session_id && target.integration.transport === 'http') {
    const upstream = await mcpUpstreams.connect(target.integration, { sessionId: session.upstream_session_id, protocolVersion: session.protocol_version }).catch(() => undefined);
    const transport = upstream?.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport?.terminateSession?.().catch(() => undefined);
    await upstream?.close().catch(() => undefined);
  }
  call.res.writeHead(200).end();
}

/**
 * The session's server-to-client stream (client-stream.ts). The older SSE transport keeps its
 * session in one connection gw cannot hold open for a client, so there it answers 405, as the
 * transport allows.
 */
export async function serveMcpGet(call: Call, principal: Principal, slug: string): Promise<void> {
  const { mcpUpstreams, mcpDirectory } = call.services;
  const target = await resolveMcpTarget(mcpDirectory, principal, slug);
  if (target.integration.transport !== 'http') {
    throw new ApiError(405, 'method_not_allowed', 'This MCP server is reached over the SSE transport: gw opens no server-to-client stream for it', 'invalid_request_error', { headers: { allow: 'POST, DELETE' } });
  }
  if (!String(call.req.headers.accept ?? '').includes('text/event-stream')) {
    sendRpcError(call, 406, ErrorCode.InvalidRequest, 'Not Acceptable: the client must accept text/event-stream');
    return;
  }
  const session = await sessionOf(call, principal, target);
  if (!session) {
    const named = call.req.headers[SESSION_HEADER] !== undefined;
    sendRpcError(call, named ? 404 : 400, named ? -32001 : ErrorCode.InvalidRequest, named ? 'Session not found' : 'Bad Request: Mcp-Session-Id header is required');
    return;
  }
  await relayClientStream(call, session.id, clientCapabilitiesOf(session), relaysOf(target.server), () =>
    mcpUpstreams.connect(target.integration, { sessionId: session.upstream_session_id, protocolVersion: session.protocol_version }, { getStream: true }),
  );
}
