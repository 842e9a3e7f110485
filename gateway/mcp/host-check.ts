/**
 * DNS-rebinding protection for `/{slug}/mcp` (the MCP transport requires servers to validate
 * Origin): a page on another site whose name resolves to gw's address must not reach the
 * gateway with a user's ambient credentials. Checked before authentication, so a refused request
 * learns nothing. Allowed: loopback names on the port the request came in on, the host of gw's
 * public URL, and GW_MCP_ALLOWED_HOSTS.
 */
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const MCP_PATH = /^\/[^/?#]+\/mcp(?:[?#]|$)/;

export function isMcpGatewayPath(url: string | undefined): boolean {
  return url !== undefined && !url.startsWith('/v1/') && !url.startsWith('/v2/') && MCP_PATH.test(url);
}

/** `name:port` in lower case, the port made explicit. */
function normalised(host: string, defaultPort: number): string {
  const lower = host.trim().toLowerCase();
  return /:\d+$/.test(lower) ? lower : `${lower}:${defaultPort}`;
}

export interface HostRefusal {
  status: 403 | 421;
  message: string;
}

/** Why the request's Host or Origin is refused, or undefined when both are allowed. */
export function refusedHost(req: IncomingMessage, publicUrl: string, extra: readonly string[]): HostRefusal | undefined {
  const port = req.socket.localPort ?? 80;
  const allowed = new Set([...LOOPBACK_NAMES.map((name) => `${name}:${port}`), ...extra.map((host) => normalised(host, 80))]);
  const publicHost = new URL(publicUrl);
  allowed.add(normalised(publicHost.host, publicHost.protocol === 'https:' ? 443 : 80));

  const host = req.headers.host;
  if (!host || !allowed.has(normalised(host, 80))) {
    return { status: 421, message: `Host ${host ?? '(none)'} is not a name this MCP gateway answers to (GW_MCP_ALLOWED_HOSTS)` };
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let originHost: string | undefined;
  try {
    const parsed = new URL(origin);
    originHost = normalised(parsed.host, parsed.protocol === 'https:' ? 443 : 80);
  } catch {
    originHost = undefined;
  }
  if (!originHost || !allowed.has(originHost)) return { status: 403, message: `Origin ${origin} may not call this MCP gateway (GW_MCP_ALLOWED_HOSTS)` };
  return undefined;
}
