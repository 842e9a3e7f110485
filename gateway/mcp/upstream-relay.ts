/**
 * The way back: what the upstream sends gw while it serves a request (notifications, progress,
 * server-to-client requests) goes to the MCP client on the answer stream of the request it
 * concerns, and what the client sends back comes to the upstream (client-relay.ts). gw relays
 * what it does not act on; it refuses a server-to-client request the client did not declare.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type ClientCapabilities, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { notRelayed, type ClientFeatureRelays } from './client-features.js';
import type { McpClientRelay } from './client-relay.js';
import type { UpstreamConnection } from './upstream-client.js';

type RequestId = string | number;

/** One gateway request (a POST, or the client's GET stream) as the way back sees it. */
export interface DownstreamLink {
  /** gw's session (undefined while initialize opens it). */
  sessionId: string | undefined;
  /** What the client declared at initialize. */
  clientCapabilities: ClientCapabilities;
  /**
   * Carries a message to the client, about its request `relatedRequestId` (by default the one
   * the upstream serves now): on that request's answer stream, or on the client's GET stream.
   * False when nothing can carry it (the client went away, or no request is open).
   */
  send(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<boolean>;
  /** The client's request the upstream serves now (POST only). */
  current: RequestId | undefined;
  /** Which server-to-client features the MCP server's settings let through. */
  relays: ClientFeatureRelays;
}

/** The link of a POST answered by the SDK's server transport: messages go on the answer stream of their request. */
export function postLink(sessionId: string | undefined, clientCapabilities: ClientCapabilities, relays: ClientFeatureRelays, transport: () => Transport | undefined): DownstreamLink {
  const link: DownstreamLink = {
    sessionId,
    clientCapabilities,
    relays,
    current: undefined,
    async send(message, relatedRequestId = link.current) {
      const answering = transport();
      if (!answering || relatedRequestId === undefined) return false;
      // The answer stream may have ended (the client went away): nothing else can carry it.
      return answering.send(message, { relatedRequestId }).then(
        () => true,
        () => false,
      );
    },
  };
  return link;
}

/** The client capability a server-to-client request needs. */
const NEEDS: Record<string, keyof ClientCapabilities> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * Relays one server-to-client request (sampling, elicitation, roots) the upstream sent while it
 * serves the client's request, and returns the client's result; throws the McpError the upstream
 * should get when gw refuses it or the client answers with an error.
 */
export async function relayServerRequest(link: DownstreamLink, relay: McpClientRelay, timeoutMs: number, request: { method: string; params?: unknown }, aborted: AbortSignal): Promise<unknown> {
  const switchedOff = notRelayed(request.method, link.relays);
  if (switchedOff) throw new McpError(ErrorCode.InvalidRequest, switchedOff);
  const needs = NEEDS[request.method];
  if (needs && !link.clientCapabilities[needs]) {
    throw new McpError(ErrorCode.InvalidRequest, `The MCP client did not declare the ${needs} capability: gw cannot relay ${request.method} to it`);
  }
  const noWay = () => new McpError(ErrorCode.InvalidRequest, `gw has no open stream to the MCP client to carry ${request.method}`);
  if (!link.sessionId) throw noWay();
  // gw's own id: the client answers it on another POST, maybe to another instance.
  const id = `gw-${randomUUID()}`;
  const controller = new AbortController();
  const signal = AbortSignal.any([aborted, controller.signal, AbortSignal.timeout(timeoutMs)]);
  const answering = relay.answerTo(link.sessionId, id, signal);
  if (!(await link.send({ jsonrpc: '2.0', id, method: request.method, params: request.params } as JSONRPCMessage))) {
    controller.abort(noWay());
  }
  const answer = await answering;
  if (answer.error) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result;
}

/** Wires an upstream connection's incoming messages to the client of this POST. */
export function relayUpstreamMessages(connection: UpstreamConnection, link: DownstreamLink, relay: McpClientRelay, timeoutMs: number): void {
  const { client } = connection;
  client.fallbackNotificationHandler = async (notification) => {
    if (notRelayed(notification.method, link.relays)) return;
    await link.send({ jsonrpc: '2.0', ...notification } as JSONRPCMessage);
  };
  client.fallbackRequestHandler = async (request, extra) => (await relayServerRequest(link, relay, timeoutMs, request, extra.signal)) as never;
}

/**
 * The options of the upstream request that serves the client's request `requestId`: cancelled
 * with it (on this POST or by the client's notifications/cancelled on another), and its progress
 * relayed under the client's own progress token.
 */
export function upstreamRequestOptions(
  link: DownstreamLink,
  relay: McpClientRelay,
  timeoutMs: number,
  request: { params?: { _meta?: { progressToken?: string | number } } },
  extra: { signal: AbortSignal; requestId: RequestId },
): { options: RequestOptions; done(): void } {
  link.current = extra.requestId;
  const cancelled = link.sessionId ? relay.track(link.sessionId, extra.requestId) : undefined;
  const signal = cancelled ? AbortSignal.any([extra.signal, cancelled.signal]) : extra.signal;
  const progressToken = request.params?._meta?.progressToken;
  const options: RequestOptions = { signal, timeout: timeoutMs };
  if (progressToken !== undefined) {
    const requestId = extra.requestId;
    options.resetTimeoutOnProgress = true;
    options.onprogress = (progress: Progress) => void link.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...progress, progressToken } }, requestId);
  }
  return { options, done: () => cancelled?.done() };
}
