/** The headers a call to an agent (or its card) carries: the integration's own credential, never the caller's. */
import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets } from '../../store/secret-fields.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';
import { ClientCredentialsTokens, type ClientCredentials } from '../outbound/client-credentials.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import type { IntegrationTls } from '../outbound/client-tls-pools.js';
import type { PooledAnswer } from '../outbound/pooled-http.js';

export type AgentAuthType = 'none' | 'bearer' | 'headers' | 'oauth_client_credentials';

export interface AgentAuthConfig extends ClientCredentials {
  token?: string;
  headers?: Record<string, string>;
}

/** The headers of the auth types that need no token endpoint. */
function staticHeaders(authType: AgentAuthType, config: AgentAuthConfig): Record<string, string> {
  if (authType === 'bearer' && config.token) return { authorization: `Bearer ${config.token}` };
  if (authType === 'headers' && config.headers) return { ...config.headers };
  return {};
}

/** An agent's credential on each call, client-credentials tokens kept until shortly before they expire. */
export class AgentAuth {
  private readonly tokens: ClientCredentialsTokens;
  /** Each record's auth config with its secrets opened, kept per record object (a changed integration is a new object). */
  private readonly opened = new WeakMap<AgentIntegrationRecord, AgentAuthConfig>();
  /** Each record's client certificate with its key unsealed, kept the same way. */
  private readonly tlsClients = new WeakMap<AgentIntegrationRecord, IntegrationTls>();

  constructor(
    private readonly box: SecretBox,
    fetchToken: GuardedFetch,
    now: () => number,
  ) {
    this.tokens = new ClientCredentialsTokens(fetchToken, now, { codePrefix: 'agent', name: 'The agent', fieldPrefix: 'auth_config.' });
  }

  /** Headers for an auth config not (yet) stored, such as a card fetched before registration; a token is fetched afresh. */
  async headers(authType: AgentAuthType, config: AgentAuthConfig): Promise<Record<string, string>> {
    if (authType !== 'oauth_client_credentials') return staticHeaders(authType, config);
    return { authorization: `Bearer ${(await this.tokens.fresh(config)).token}` };
  }

  /** The client certificate gw presents to the agent (mTLS), if the integration stores one; a new version of the integration gets new pools. */
  tls(integration: AgentIntegrationRecord): IntegrationTls | undefined {
    if (!integration.client_tls || !integration.client_tls_key) return undefined;
    let tls = this.tlsClients.get(integration);
    if (!tls) {
      const { certificate, ca_certificates } = integration.client_tls;
      tls = { id: integration.id, version: integration.updated_at, cert: certificate, key: this.box.open(integration.client_tls_key), ...(ca_certificates ? { ca: ca_certificates } : {}) };
      this.tlsClients.set(integration, tls);
    }
    return tls;
  }

  /**
   * Sends a call with a stored integration's credential, its secrets unsealed; a 401 to a
   * client-credentials token drops that token and sends once more with a new one.
   */
  async send(integration: AgentIntegrationRecord, send: (authHeaders: Record<string, string>) => Promise<PooledAnswer>): Promise<PooledAnswer> {
    let config = this.opened.get(integration);
    if (!config) {
      config = restoreSecrets(integration.auth_config, openSecrets(this.box, integration.secrets)) as AgentAuthConfig;
      this.opened.set(integration, config);
    }
    if (integration.auth_type !== 'oauth_client_credentials') return send(staticHeaders(integration.auth_type, config));
    // The version in the key: changed credentials fetch a new token.
    const cacheKey = `${integration.id}:${integration.updated_at}`;
    const token = await this.tokens.token(cacheKey, config);
    const response = await send({ authorization: `Bearer ${token}` });
    if (response.statusCode !== 401) return response;
    await response.body.dump();
    this.tokens.forget(cacheKey, token);
    return send({ authorization: `Bearer ${await this.tokens.token(cacheKey, config)}` });
  }
}
