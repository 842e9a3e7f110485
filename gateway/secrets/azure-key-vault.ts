/**
 * Azure Key Vault over its REST API: an Entra ID token from the client-credentials grant
 * (`POST {authority}/{tenant}/oauth2/v2.0/token`, scope `https://vault.azure.net/.default`), then
 * `GET {vault}/secrets/{name}[/{version}]?api-version=7.4`. Tokens are reused until shortly
 * before they expire and dropped when the vault answers 401.
 */
import { TokenCache } from '../outbound/token-cache.js';
import { jsonAnswer, SecretManagerError, text, type ManagerOutbound, type OpenReference, type SecretManagerClient, type SecretValue } from './secret-manager.js';

export const AZURE_AUTHORITY = 'https://login.microsoftonline.com';
const KEY_VAULT_SCOPE = 'https://vault.azure.net/.default';
const API_VERSION = '7.4';

export class AzureKeyVaultClient implements SecretManagerClient {
  private readonly tokens: TokenCache<string>;

  constructor(private readonly outbound: ManagerOutbound) {
    this.tokens = new TokenCache(outbound.now);
  }

  async read(reference: OpenReference): Promise<SecretValue> {
    const vault = text(reference.auth.azure_vault_url)?.replace(/\/+$/, '');
    if (!vault) throw new SecretManagerError('auth_config.azure_vault_url is missing');
    const [name, version] = reference.secret_path.replace(/^\/+|\/+$/g, '').split('/');
    if (!name) throw new SecretManagerError('secret_path must name the secret');
    const url = `${vault}/secrets/${encodeURIComponent(name)}${version ? `/${encodeURIComponent(version)}` : ''}?api-version=${API_VERSION}`;
    const cacheKey = reference.id + reference.version;
    const token = await this.tokens.get(cacheKey, () => this.fetchToken(reference));
    const response = await this.outbound.fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.outbound.timeoutMs) });
    if (response.status === 401) this.tokens.drop(cacheKey);
    const value = text((await jsonAnswer(response, 'Azure Key Vault')).value);
    if (value === undefined) throw new SecretManagerError('Azure Key Vault answered no secret value');
    return value;
  }

  private async fetchToken(reference: OpenReference) {
    const tenant = text(reference.auth.azure_entra_tenant_id);
    const clientId = text(reference.auth.azure_entra_client_id);
    const clientSecret = text(reference.auth.azure_entra_client_secret);
    if (!tenant || !clientId || !clientSecret) {
      throw new SecretManagerError('auth_config needs azure_entra_tenant_id, azure_entra_client_id and azure_entra_client_secret');
    }
    const authority = (text(reference.auth.azure_authority_host) ?? AZURE_AUTHORITY).replace(/\/+$/, '');
    const response = await this.outbound.fetch(`${authority}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: KEY_VAULT_SCOPE }).toString(),
      signal: AbortSignal.timeout(this.outbound.timeoutMs),
    });
    const answer = await jsonAnswer(response, 'Entra token endpoint');
    const token = text(answer.access_token);
    if (!token) throw new SecretManagerError('Entra token endpoint answered no access_token');
    const expiresIn = Number(answer.expires_in);
    return { value: token, expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? this.outbound.now() + expiresIn * 1000 : undefined };
  }
}
