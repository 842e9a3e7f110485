/**
 * HashiCorp Vault, KV secrets engine version 2, over Vault's HTTP API: `GET /v1/<mount>/data/<path>`
 * with `X-Vault-Token` (and `X-Vault-Namespace`). The token is either given (`vault_token`) or
 * obtained by AppRole login (`POST /v1/auth/<mount>/login` with role_id and secret_id) and reused
 * for its lease.
 */
import { TokenCache } from '../outbound/token-cache.js';
import { jsonAnswer, SecretManagerError, text, type ManagerOutbound, type OpenReference, type SecretManagerClient, type SecretValue } from './secret-manager.js';

/** `secret/team/openai` -> mount `secret`, path `team/openai`. */
function splitPath(secretPath: string): { mount: string; path: string } {
  const clean = secretPath.replace(/^\/+|\/+$/g, '');
  const slash = clean.indexOf('/');
  if (slash <= 0) throw new SecretManagerError('secret_path must be <mount>/<path> for hashicorp_vault');
  return { mount: clean.slice(0, slash), path: clean.slice(slash + 1) };
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export class VaultKvClient implements SecretManagerClient {
  private readonly tokens: TokenCache<string>;

  constructor(private readonly outbound: ManagerOutbound) {
    this.tokens = new TokenCache(outbound.now);
  }

  async read(reference: OpenReference): Promise<SecretValue> {
    const address = text(reference.auth.vault_addr)?.replace(/\/+$/, '');
    if (!address) throw new SecretManagerError('auth_config.vault_addr is missing');
    const { mount, path } = splitPath(reference.secret_path);
    const headers: Record<string, string> = { 'x-vault-token': await this.token(reference, address) };
    const namespace = text(reference.auth.vault_namespace);
    if (namespace) headers['x-vault-namespace'] = namespace;
    const response = await this.outbound.fetch(`${address}/v1/${encodePath(mount)}/data/${encodePath(path)}`, {
      headers,
      signal: AbortSignal.timeout(this.outbound.timeoutMs),
    });
    if (response.status === 403) this.tokens.drop(reference.id + reference.version);
    const answer = await jsonAnswer(response, 'Vault');
    const data = (answer.data as { data?: unknown } | undefined)?.data;
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new SecretManagerError('Vault answered no KV v2 data (is the mount KV version 2?)');
    return data as Record<string, unknown>;
  }

  private async token(reference: OpenReference, address: string): Promise<string> {
    const given = text(reference.auth.vault_token);
    if (given) return given;
    const roleId = text(reference.auth.vault_role_id);
    const secretId = text(reference.auth.vault_secret_id);
    if (!roleId || !secretId) throw new SecretManagerError('auth_config needs vault_token, or vault_role_id and vault_secret_id');
    return this.tokens.get(reference.id + reference.version, async () => {
      const mount = text(reference.auth.vault_approle_mount) ?? 'approle';
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const namespace = text(reference.auth.vault_namespace);
      if (namespace) headers['x-vault-namespace'] = namespace;
      const response = await this.outbound.fetch(`${address}/v1/auth/${encodePath(mount)}/login`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ role_id: roleId, secret_id: secretId }),
        signal: AbortSignal.timeout(this.outbound.timeoutMs),
      });
      const auth = (await jsonAnswer(response, 'Vault AppRole login')).auth as { client_token?: unknown; lease_duration?: unknown } | undefined;
      const token = text(auth?.client_token);
      if (!token) throw new SecretManagerError('Vault AppRole login answered no client_token');
      const lease = typeof auth?.lease_duration === 'number' && auth.lease_duration > 0 ? auth.lease_duration : undefined;
      return { value: token, expiresAt: lease === undefined ? undefined : this.outbound.now() + lease * 1000 };
    });
  }
}
