import { UpstreamError } from '../../core/errors.js';
import { AnswerTooLargeError } from '../outbound/answer-cap.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import type { McpCredentials } from './integration-secrets.js';

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Tokens are renewed this long before the expiry the token endpoint announced. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * OAuth client-credentials tokens for MCP integrations (RFC 6749 section 4.4), fetched through
 * the outbound guard and kept in memory until shortly before they expire. The cache key includes
 * the integration's version, so changed credentials fetch a new token.
 */
export class ClientCredentialsTokens {
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    private readonly fetch: GuardedFetch,
    private readonly now: () => number,
  ) {}

  /** Drops a token the MCP server refused, so the next `token` fetches a new one. */
  forget(cacheKey: string, token: string): void {
    if (this.cache.get(cacheKey)?.token === token) this.cache.delete(cacheKey);
  }

  async token(cacheKey: string, credentials: McpCredentials): Promise<string> {
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > this.now()) return cached.token;
    if (!credentials.token_url || !credentials.client_id || !credentials.client_secret) {
      throw new UpstreamError(502, 'oauth_client_credentials needs configurations.token_url, client_id and client_secret', 'mcp_auth_misconfigured');
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret });
    if (credentials.scope) form.set('scope', credentials.scope);
    const response = await this.fetch(credentials.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    const body = (await response.json().catch((error: unknown) => {
      if (error instanceof AnswerTooLargeError) throw new UpstreamError(502, `The MCP server's token endpoint: ${error.message}`, 'mcp_token_failed');
      return {};
    })) as { access_token?: unknown; expires_in?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new UpstreamError(502, `The MCP server's token endpoint answered ${response.status} without an access token`, 'mcp_token_failed');
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    this.cache.set(cacheKey, { token: body.access_token, expiresAt: this.now() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) });
    return body.access_token;
  }
}
