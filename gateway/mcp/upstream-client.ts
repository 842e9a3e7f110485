/**
 * Connections from gw to an MCP server, made with the MCP SDK's own client and transports. Every
 * request goes through the outbound guard's fetch (private and metadata addresses refused unless
 * TRUSTED_CUSTOM_HOSTS lists the host, redirects included).
 */
import { randomInt } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import { watchAnswerStreams } from './answer-stream-watch.js';
import { LazySchemaValidator } from './lazy-schema-validator.js';
import { TOO_LARGE } from './upstream-failure.js';

export interface UpstreamTarget {
  url: string;
  transport: 'http' | 'sse';
  /** Custom headers and the bearer token of client-credentials auth. */
  headers: Record<string, string>;
}

export interface UpstreamConnection {
  client: Client;
  transport: Transport;
  /** The upstream's Mcp-Session-Id (Streamable HTTP servers that keep sessions). */
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  close(): Promise<void>;
}

export interface ConnectOptions {
  fetch: GuardedFetch;
  clientName: string;
  clientVersion: string;
  /** Resume an upstream session another request (maybe on another instance) opened: no new initialize. */
  resume?: { sessionId: string | null; protocolVersion: string | null };
  /** Per request to the upstream. */
  timeoutMs: number;
  /**
   * What gw declares at initialize: the MCP client's own capabilities, so the upstream offers it
   * exactly the server-to-client requests (sampling, elicitation, roots) gw can relay to it.
   */
  clientCapabilities?: ClientCapabilities;
  /** This connection carries the session's GET stream (client-stream.ts); others never open it. */
  getStream?: boolean;
}

function transportFor(target: UpstreamTarget, options: ConnectOptions, fetch: GuardedFetch): Transport {
  const url = new URL(target.url);
  const requestInit = { headers: target.headers };
  if (target.transport === 'sse') return new SSEClientTransport(url, { fetch, requestInit, eventSourceInit: { fetch: withHeaders(fetch, target.headers) } });
  return new StreamableHTTPClientTransport(url, { fetch, requestInit, sessionId: options.resume?.sessionId ?? undefined });
}

/** The SSE stream's GET is made by the eventsource library, which takes headers only through fetch. */
function withHeaders(fetch: GuardedFetch, headers: Record<string, string>): GuardedFetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  }) as GuardedFetch;
}

/**
 * The SDK's Streamable HTTP client opens the session's GET stream by itself after initialize.
 * gw's connections serve one request each: the session's one GET stream is opened when the MCP
 * client opens its own (client-stream.ts), so here the GET is answered 405 ("no stream") locally.
 */
function withoutGetStream(fetch: GuardedFetch): GuardedFetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    (init?.method ?? 'GET') === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init)) as GuardedFetch;
}

/**
 * Opening a connection is bounded like a request: the SDK's connect waits without a limit for an
 * SSE server to open its stream and name its message endpoint (its timeout covers initialize only).
 */
async function withinTimeout(connecting: Promise<void>, timeoutMs: number, abandon: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new McpError(ErrorCode.RequestTimeout, `The MCP server did not open the connection within ${timeoutMs} ms (REQUEST_TIMEOUT)`)), timeoutMs);
  });
  try {
    await Promise.race([connecting, expired]);
  } catch (error) {
    // The abandoned connect may still fail later, once its stream is closed: nobody waits for it.
    connecting.catch(() => undefined);
    await abandon().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Each gw request to a session has its own client, and the SDK's client numbers its requests
 * from 0: concurrent requests of one session would reach the upstream with the same id (and
 * its answers go astray). Each client starts at a random point instead. The SDK keeps the counter
 * in a private field; the MCP relay tests fail if that changes.
 */
function startIdsApart(client: Client): void {
  const counter = client as unknown as { _requestMessageId?: unknown };
  if (typeof counter._requestMessageId !== 'number') throw new Error('The MCP SDK client no longer numbers its requests where gw sets them apart');
  counter._requestMessageId = randomInt(1, 2 ** 47);
}

/**
 * What the client sent last before it closes (a cancellation the SDK sends without waiting, when
 * the request it cancels ends gw's request) still leaves: close waits for the sends in flight.
 */
function flushBeforeClose(transport: Transport): { flushed(): Promise<void> } {
  const inFlight = new Set<Promise<void>>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sent = send(message, options);
    inFlight.add(sent);
    void sent.catch(() => undefined).finally(() => inFlight.delete(sent));
    return sent;
  };
  return { flushed: async () => void (await Promise.allSettled([...inFlight])) };
}

/**
 * Opens a client. A Streamable HTTP session is resumed without a new initialize when `resume`
 * names one; otherwise (and always over SSE, whose session lives in one connection) the client
 * initializes.
 */
export async function connectUpstream(target: UpstreamTarget, options: ConnectOptions): Promise<UpstreamConnection> {
  // An answer stream that ends without the answer fails that request now, and an answer past the
  // size bound fails the requests waiting with that error (answer-stream-watch.ts).
  const fail = (id: string | number, error: { code: number; message: string; data?: unknown }) => transport.onmessage?.({ jsonrpc: '2.0', id, error });
  const transport: Transport = transportFor(
    target,
    options,
    watchAnswerStreams(target.transport === 'http' && !options.getStream ? withoutGetStream(options.fetch) : options.fetch, {
      unanswered: (id) => fail(id, { code: ErrorCode.ConnectionClosed, message: 'The MCP server ended its answer stream without answering' }),
      tooLarge: (id, error) => fail(id, { code: ErrorCode.InternalError, message: error.message, data: { type: TOO_LARGE, limit: error.limit } }),
    }),
  );
  const client = new Client({ name: options.clientName, version: options.clientVersion }, { capabilities: options.clientCapabilities ?? {}, jsonSchemaValidator: new LazySchemaValidator() });
  startIdsApart(client);
  // A transport error (a stream cut mid-answer, say) would leave the request waiting for an answer
  // that cannot come; each client serves one gw request, so closing it rejects what is pending.
  // A stray message (progress for a token, or an answer for a request, that gw no longer waits
  // for) is no transport failure: the connection stays.
  client.onerror = (error) => {
    if (/^Received a (progress notification for an unknown token|response for an unknown message ID)/.test(error.message)) return;
    void client.close().catch(() => undefined);
  };
  const resuming = target.transport === 'http' && options.resume !== undefined;
  if (resuming) {
    if (options.resume?.protocolVersion) (transport as StreamableHTTPClientTransport).setProtocolVersion(options.resume.protocolVersion);
    // The session was initialized when it opened: attach the transport only (Client.connect would
    // initialize again when the upstream issued no session id).
    await Protocol.prototype.connect.call(client, transport);
  } else {
    await withinTimeout(client.connect(transport, { timeout: options.timeoutMs }), options.timeoutMs, () => client.close());
  }
  const http = transport as Partial<StreamableHTTPClientTransport>;
  const sending = flushBeforeClose(transport);
  return {
    client,
    transport,
    sessionId: http.sessionId,
    protocolVersion: http.protocolVersion,
    close: async () => {
      await sending.flushed();
      await client.close();
    },
  };
}
