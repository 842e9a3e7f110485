/**
 * The client's GET stream of a session: gw opens the upstream session's own GET stream and
 * relays what comes on it (resource updates, list changes, log messages, server-to-client
 * requests sent outside any request) as SSE events; the client's answers come back on POSTs
 * (client-relay.ts). The stream lives as long as both sides keep it open.
 */
import type { ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Call } from '../../core/call.js';
import type { UpstreamConnection } from './upstream-client.js';
import type { ClientFeatureRelays } from './client-features.js';
import { relayUpstreamMessages, type DownstreamLink } from './upstream-relay.js';

/** An SSE comment now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 25_000;

/** The SDK's client transport opens its GET stream itself only after initialize; a resumed session asks for it. */
async function openUpstreamStream(connection: UpstreamConnection): Promise<void> {
  const transport = connection.transport as unknown as { _startOrAuthSse?: (options: { resumptionToken?: string }) => Promise<void> };
  if (typeof transport._startOrAuthSse !== 'function') throw new Error('The MCP SDK client transport no longer opens its GET stream where gw asks it to');
  await transport._startOrAuthSse({});
}

export async function relayClientStream(call: Call, sessionId: string, clientCapabilities: ClientCapabilities, relays: ClientFeatureRelays, connect: () => Promise<UpstreamConnection>): Promise<void> {
  const { res } = call;
  const upstream = await connect();
  let open = true;
  const link: DownstreamLink = {
    sessionId,
    clientCapabilities,
    relays,
    current: undefined,
    async send(message: JSONRPCMessage) {
      if (!open) return false;
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return true;
    },
  };
  relayUpstreamMessages(upstream, link, call.services.mcpClientRelay, call.services.mcpUpstreams.timeoutMs);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'mcp-session-id': sessionId });
  res.flushHeaders();
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const ended = new Promise<void>((resolve) => {
    res.on('close', resolve);
    upstream.client.onclose = () => resolve();
  });
  try {
    await openUpstreamStream(upstream);
    await ended;
  } catch {
    // The upstream refused or dropped the stream: the client's ends too, and it may open another.
  } finally {
    open = false;
    clearInterval(keepalive);
    if (!res.writableEnded) res.end();
    await upstream.close().catch(() => undefined);
  }
}
