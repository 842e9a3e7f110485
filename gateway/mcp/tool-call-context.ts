import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import type { McpTarget } from './mcp-target.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { UpstreamConnection } from './upstream-client.js';
import type { DownstreamLink } from './upstream-relay.js';

/** One gateway request to an MCP server, as its handlers see it. */
export interface McpToolCallContext {
  call: Call;
  principal: Principal;
  target: McpTarget;
  /** x-gw-metadata of the request (conditions and group_by of rate limits read it). */
  metadata: Record<string, string>;
  /** The upstream client, connected on first use and closed when the request ends. */
  upstream(): Promise<UpstreamConnection>;
  /** Set when the tool call's rate limits were checked before the SDK server ran (to answer HTTP 429). */
  admitted: boolean;
  /** Where the upstream's messages for the client go (upstream-relay.ts). */
  link: DownstreamLink;
  /**
   * The options of the upstream request serving the client's request: its cancellation and
   * progress relayed; `done` when it has answered.
   */
  requestOptions(request: { params?: { _meta?: { progressToken?: string | number } } }, extra: { signal: AbortSignal; requestId: string | number }): { options: RequestOptions; done(): void };
}
