import type { SecretBox } from '../../store/secret-box.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import { GW_VERSION } from '../../server/version.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import { vetOutboundUrl, type ResolveHost } from '../outbound/url-guard.js';
import { ClientCredentialsTokens } from './client-credentials.js';
import { openMcpConfigurations } from './integration-secrets.js';
import { connectUpstream, type UpstreamConnection, type UpstreamTarget } from './upstream-client.js';

export interface McpUpstreamsOptions {
  secrets: SecretBox;
  /** The outbound guard's fetch: every request to an MCP server or its token endpoint goes through it. */
  fetch: GuardedFetch;
  trustedHosts: readonly string[];
  resolve?: ResolveHost;
  now: () => number;
  /** Per request to an MCP server. */
  timeoutMs: number;
}

/** Where an integration's MCP server is and how gw reaches it. */
export class McpUpstreams {
  private readonly tokens: ClientCredentialsTokens;

  constructor(private readonly options: McpUpstreamsOptions) {
    this.tokens = new ClientCredentialsTokens(options.fetch, options.now);
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Refuses private, link-local and metadata addresses (unless trusted) with a 400 naming `url`. */
  async vetUrl(url: string): Promise<void> {
    await vetOutboundUrl(url, { trustedHosts: this.options.trustedHosts, resolve: this.options.resolve, param: 'url', code: 'unsafe_mcp_url' });
  }

  async target(integration: McpIntegrationRecord): Promise<UpstreamTarget> {
    const credentials = openMcpConfigurations(this.options.secrets, integration);
    const headers: Record<string, string> = { ...(credentials.custom_headers ?? {}) };
    if (integration.auth_type === 'oauth_client_credentials') {
      headers.authorization = `Bearer ${await this.tokens.token(`${integration.id}:${integration.updated_at}`, credentials)}`;
    }
    return { url: integration.url, transport: integration.transport, headers };
  }

  async connect(integration: McpIntegrationRecord, resume?: { sessionId: string | null; protocolVersion: string | null }): Promise<UpstreamConnection> {
    return connectUpstream(await this.target(integration), {
      fetch: this.options.fetch,
      clientName: 'gw',
      clientVersion: GW_VERSION,
      resume,
      timeoutMs: this.options.timeoutMs,
    });
  }
}
