import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { SecretBox } from '../../store/secret-box.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import { GW_VERSION } from '../../core/version.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import type { PooledAnswer, PooledHttp } from '../outbound/pooled-http.js';
import { vetOutboundUrl, type ResolveHost } from '../outbound/url-guard.js';
import { ClientCredentialsTokens } from '../outbound/client-credentials.js';
import { openMcpConfigurations, type McpCredentials } from './integration-secrets.js';
import { connectUpstream, type UpstreamConnection, type UpstreamTarget } from './upstream-client.js';

export interface McpUpstreamsOptions {
  secrets: SecretBox;
  /** The outbound guard's fetch: every request to an MCP server or its token endpoint goes through it. */
  fetch: GuardedFetch;
  /** The kept-alive pools through the outbound guard, for tools/call on the direct path. */
  http: PooledHttp;
  trustedHosts: readonly string[];
  resolve?: ResolveHost;
  now: () => number;
  /** Per request to an MCP server. */
  timeoutMs: number;
}

/** Tokens are kept per integration version, so changed credentials fetch a new one. */
const tokenCacheKey = (integration: McpIntegrationRecord) => `${integration.id}:${integration.updated_at}`;
/** How the outbound guard names a refused MCP server URL at connect. */
const MCP_URL = { code: 'unsafe_mcp_url', source: 'The MCP server URL' };

/** Where an integration's MCP server is and how gw reaches it. */
export class McpUpstreams {
  private readonly tokens: ClientCredentialsTokens;
  /**
   * Each integration's configurations with their secrets opened, kept per record object: the
   * directory (mcp-directory.ts) hands out the same object until the integration is written, and a
   * written one is a new object, so a change is never missed.
   */
  private readonly opened = new WeakMap<McpIntegrationRecord, McpCredentials>();

  constructor(private readonly options: McpUpstreamsOptions) {
    this.tokens = new ClientCredentialsTokens(options.fetch, options.now, { codePrefix: 'mcp', name: 'The MCP server', fieldPrefix: 'configurations.' });
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Refuses private, link-local and metadata addresses (unless trusted) with a 400 naming `url`. */
  async vetUrl(url: string): Promise<void> {
    await vetOutboundUrl(url, { trustedHosts: this.options.trustedHosts, resolve: this.options.resolve, param: 'url', code: 'unsafe_mcp_url' });
  }

  async target(integration: McpIntegrationRecord): Promise<UpstreamTarget> {
    const credentials = this.credentials(integration);
    const headers: Record<string, string> = { ...(credentials.custom_headers ?? {}) };
    if (integration.auth_type === 'oauth_client_credentials') {
      headers.authorization = `Bearer ${await this.tokens.token(tokenCacheKey(integration), credentials)}`;
    }
    return { url: integration.url, transport: integration.transport, headers };
  }

  /**
   * For client-credentials integrations, every request carries the current token, and a 401 from
   * the MCP server (a token revoked or expired early) drops it, fetches a new one and retries once.
   */
  private fetchFor(integration: McpIntegrationRecord): GuardedFetch {
    const fetch = this.options.fetch;
    if (integration.auth_type !== 'oauth_client_credentials') return fetch;
    const cacheKey = tokenCacheKey(integration);
    const credentials = () => this.credentials(integration);
    const send = async (input: Parameters<GuardedFetch>[0], init: RequestInit | undefined, token: string) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    return (async (input: Parameters<GuardedFetch>[0], init?: RequestInit) => {
      const token = await this.tokens.token(cacheKey, credentials());
      const response = await send(input, init, token);
      if (response.status !== 401) return response;
      await response.body?.cancel().catch(() => undefined);
      this.tokens.forget(cacheKey, token);
      return send(input, init, await this.tokens.token(cacheKey, credentials()));
    }) as GuardedFetch;
  }

  /**
   * POSTs JSON-RPC text to a Streamable HTTP server in the upstream session gw holds, as the SDK's
   * client transport would (direct-tool-call.ts), over the outbound guard's kept-alive pools
   * (pooled-http.ts); the caller reads the answer within GW_MAX_UPSTREAM_ANSWER_BYTES. A
   * client-credentials integration's call carries the current token, and a 401 drops it and sends
   * once more with a new one.
   */
  async post(integration: McpIntegrationRecord, session: { sessionId: string | null; protocolVersion: string | null }, body: string, signal?: AbortSignal): Promise<PooledAnswer> {
    const headers: Record<string, string> = { ...this.credentials(integration).custom_headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session.sessionId) headers['mcp-session-id'] = session.sessionId;
    if (session.protocolVersion) headers['mcp-protocol-version'] = session.protocolVersion;
    const send = (extra?: Record<string, string>) => this.options.http.post(integration.url, { headers: extra ? withHeaders(headers, extra) : headers, body, signal }, MCP_URL);
    if (integration.auth_type !== 'oauth_client_credentials') return send();
    const cacheKey = tokenCacheKey(integration);
    const token = await this.tokens.token(cacheKey, this.credentials(integration));
    const answer = await send({ authorization: `Bearer ${token}` });
    if (answer.statusCode !== 401) return answer;
    await answer.body.dump();
    this.tokens.forget(cacheKey, token);
    return send({ authorization: `Bearer ${await this.tokens.token(cacheKey, this.credentials(integration))}` });
  }

  private credentials(integration: McpIntegrationRecord): McpCredentials {
    let credentials = this.opened.get(integration);
    if (!credentials) {
      credentials = openMcpConfigurations(this.options.secrets, integration);
      this.opened.set(integration, credentials);
    }
    return credentials;
  }

  async connect(
    integration: McpIntegrationRecord,
    resume?: { sessionId: string | null; protocolVersion: string | null },
    options: { clientCapabilities?: ClientCapabilities; getStream?: boolean } = {},
  ): Promise<UpstreamConnection> {
    return connectUpstream(await this.target(integration), {
      fetch: this.fetchFor(integration),
      clientName: 'gw',
      clientVersion: GW_VERSION,
      resume,
      ...options,
      timeoutMs: this.options.timeoutMs,
    });
  }
}

/** `headers` with `extra` set over them, names compared without case (a custom Authorization header gives way to the token). */
function withHeaders(headers: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!(name.toLowerCase() in extra)) out[name] = value;
  return { ...out, ...extra };
}
