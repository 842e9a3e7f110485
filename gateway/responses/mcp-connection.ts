/**
 * The MCP server a Responses `mcp` tool names, reached with the MCP SDK's client:
 * - a gw MCP server (no `server_url` and a `server_label` that is a gw MCP server's slug, or a
 *   `server_url` of `/{slug}/mcp` on gw's public URL or on the host the call came to) is reached
 *   through gw's own MCP gateway, on the address this call came in on, with the caller's
 *   credentials and trace id: its access checks, rate limits, guardrails and logs apply as to any client;
 * - any other `server_url` through the outbound guard (private addresses refused, redirects
 *   included, answers bounded), vetted first so a refusal is a 400 naming the field.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TLSSocket } from 'node:tls';
import type { Call } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';

export interface McpToolSpec {
  server_label: string;
  server_url?: string;
  headers?: Record<string, string> | null;
  authorization?: string;
}

/** The caller's gw credential and metadata, handed on to gw's own MCP gateway (Authorization only without x-gw-api-key: with it, it is the provider's key). */
const FORWARDED = ['x-gw-api-key', 'cookie', 'x-gw-metadata'];

const UNSAFE_CODE = 'unsafe_mcp_url';

/** The gw MCP server slug a tool names, or undefined for an external server. */
function gwSlugOf(call: Call, tool: McpToolSpec): string | undefined {
  if (!tool.server_url) return tool.server_label;
  let url: URL;
  try {
    url = new URL(tool.server_url);
  } catch {
    return undefined;
  }
  const gwHosts = [new URL(call.services.config.publicUrl).host, call.req.headers.host].filter(Boolean);
  const match = /^\/([^/]+)\/mcp\/?$/.exec(url.pathname);
  return match && gwHosts.includes(url.host) ? decodeURIComponent(match[1]!) : undefined;
}

/** gw itself, on the socket this call came in on. */
function selfUrl(call: Call, slug: string): URL {
  const socket = call.req.socket as TLSSocket | undefined;
  // A batch line has no connection of its own, nor the caller's credential to hand on.
  if (!socket?.localAddress || !socket.localPort) throw new ValidationError('a gw MCP server can be used from an HTTP or WebSocket call only (not from a batch)', null, 'mcp_server_unavailable');
  const host = socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
  const scheme = socket.encrypted ? 'https' : 'http';
  return new URL(`${scheme}://${host}:${socket.localPort}/${encodeURIComponent(slug)}/mcp`);
}

export async function connectMcp(call: Call, tool: McpToolSpec, param: string): Promise<Client> {
  const slug = gwSlugOf(call, tool);
  const headers: Record<string, string> = { ...(tool.headers ?? {}) };
  if (tool.authorization) headers.authorization = `Bearer ${tool.authorization}`;
  let transport: StreamableHTTPClientTransport;
  if (slug !== undefined) {
    for (const name of FORWARDED) {
      const value = call.req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (!headers['x-gw-api-key'] && typeof call.req.headers.authorization === 'string') headers.authorization = call.req.headers.authorization;
    // The MCP gateway's log rows of the calls share this response's trace.
    headers['x-gw-trace-id'] = call.traceId;
    transport = new StreamableHTTPClientTransport(selfUrl(call, slug), { requestInit: { headers } });
  } else {
    if (!tool.server_url) throw new ValidationError('server_url is required for an MCP server that is not one of gw\'s', `${param}.server_url`);
    const vetted = await call.services.outbound.vet(tool.server_url, { param: `${param}.server_url`, code: UNSAFE_CODE, source: 'the mcp tool\'s server_url' });
    transport = new StreamableHTTPClientTransport(vetted.url, { fetch: call.services.outbound.fetch(UNSAFE_CODE), requestInit: { headers } });
  }
  const client = new Client({ name: 'gw-responses', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}
