/**
 * An agent integration's auth_config: `token`, `client_secret` and header values are secrets
 * (sealed, masked in answers); an update merges, and a value left out or sent back as its mask
 * keeps its value.
 */
import { ValidationError } from '../../core/errors.js';
import type { Call } from '../../core/call.js';
import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets, sealSecrets, splitSecrets } from '../../store/secret-fields.js';
import type { AgentAuthConfig, AgentAuthType } from '../../gateway/agents/agent-auth.js';

export type { AgentAuthConfig, AgentAuthType } from '../../gateway/agents/agent-auth.js';

const isSecret = (key: string, path: string) => key === 'token' || key === 'client_secret' || path.startsWith('/headers/');

export function assertAuthFits(authType: AgentAuthType, config: AgentAuthConfig): void {
  if (authType === 'bearer' && !config.token) throw new ValidationError('auth_config.token is required when auth_type is bearer', 'auth_config.token');
  if (authType === 'headers' && !config.headers) throw new ValidationError('auth_config.headers is required when auth_type is headers', 'auth_config.headers');
  if (authType === 'oauth_client_credentials') {
    for (const field of ['token_url', 'client_id', 'client_secret'] as const) {
      if (!config[field]) throw new ValidationError(`auth_config.${field} is required when auth_type is oauth_client_credentials`, `auth_config.${field}`);
    }
  }
}

/** A token endpoint named in the request passes the outbound guard, as the agent's URL does. */
export async function vetTokenUrl(call: Call, config: AgentAuthConfig | undefined): Promise<void> {
  if (config?.token_url) await call.services.outbound.vet(config.token_url, { param: 'auth_config.token_url', code: 'agent_token_url_refused' });
}

export function sealAgentAuth(
  box: SecretBox,
  authType: AgentAuthType,
  input: AgentAuthConfig | undefined,
  previous: { auth_config: Record<string, unknown>; secrets: string | null } | undefined,
): { auth_config: Record<string, unknown>; secrets: string | null } {
  const previousSecrets = previous ? openSecrets(box, previous.secrets) : {};
  const old = previous ? (restoreSecrets(previous.auth_config, previousSecrets) as AgentAuthConfig) : {};
  const merged: AgentAuthConfig = { ...old, ...input };
  const { masked, secrets } = splitSecrets(merged, previousSecrets, isSecret);
  assertAuthFits(authType, restoreSecrets(masked, secrets));
  return { auth_config: masked as Record<string, unknown>, secrets: sealSecrets(box, secrets) };
}
