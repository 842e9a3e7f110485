import { UpstreamError } from '../../core/errors.js';
import { AnswerTooLargeError } from './answer-cap.js';
import type { GuardedFetch } from './guarded-fetch.js';

/** What a client-credentials grant needs; where they live is the caller's (an MCP integration's configurations, an agent's auth_config). */
export interface ClientCredentials {
  token_url?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

/** How errors name the party the token is for: `mcp` gives mcp_auth_misconfigured, mcp_token_failed, "The MCP server's token endpoint". */
export interface TokenParty {
  codePrefix: string;
  name: string;
  /** Where the three fields are set, for the misconfiguration message ("configurations." or "auth_config."). */
  fieldPrefix: string;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Tokens are renewed this long before the expiry the token endpoint announced. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * OAuth client-credentials tokens (RFC 6749 section 4.4) for MCP integrations and agent
 * integrations, fetched through the outbound guard and kept in memory until shortly before they
 * expire. The cache key includes the integration's version, so changed credentials fetch a new token.
 */
export class ClientCredentialsTokens {
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    private readonly fetch: GuardedFetch,
    private readonly now: () => number,
    private readonly party: TokenParty,
  ) {}

  /** Drops a token the server refused, so the next `token` fetches a new one. */
  forget(cacheKey: string, token: string): void {
    if (this.cache.get(cacheKey)?.token === token) this.cache.delete(cacheKey);
  }

  async token(cacheKey: string, credentials: ClientCredentials): Promise<string> {
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > this.now()) return cached.token;
    const { token, lifetimeMs } = await this.fresh(credentials);
    this.cache.set(cacheKey, { token, expiresAt: this.now() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) });
    return token;
  }

  /** A new token from the token endpoint, not kept (for credentials not stored yet). */
  async fresh(credentials: ClientCredentials): Promise<{ token: string; lifetimeMs: number }> {
    if (!credentials.token_url || !credentials.client_id || !credentials.client_secret) {
      const { fieldPrefix, codePrefix } = this.party;
      throw new UpstreamError(502, `oauth_client_credentials needs ${fieldPrefix}token_url, client_id and client_secret`, `${codePrefix}_auth_misconfigured`);
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret });
    if (credentials.scope) form.set('scope', credentials.scope);
    const response = await this.fetch(credentials.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    const body = (await response.json().catch((error: unknown) => {
      if (error instanceof AnswerTooLargeError) throw new UpstreamError(502, `${this.party.name}'s token endpoint: ${error.message}`, `${this.party.codePrefix}_token_failed`);
      return {};
    })) as { access_token?: unknown; expires_in?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new UpstreamError(502, `${this.party.name}'s token endpoint answered ${response.status} without an access token`, `${this.party.codePrefix}_token_failed`);
    }
    return { token: body.access_token, lifetimeMs: typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000 };
  }
}
