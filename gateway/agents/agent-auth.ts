/** The headers a call to an agent (or its card) carries: the integration's own credential, never the caller's. */
import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets } from '../../store/secret-fields.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';

export type AgentAuthType = 'none' | 'bearer' | 'headers';

export interface AgentAuthConfig {
  token?: string;
  headers?: Record<string, string>;
}

export function agentHeaders(authType: AgentAuthType, config: AgentAuthConfig): Record<string, string> {
  if (authType === 'bearer' && config.token) return { authorization: `Bearer ${config.token}` };
  if (authType === 'headers' && config.headers) return { ...config.headers };
  return {};
}

/** A stored integration's headers, its secrets unsealed. */
export function integrationHeaders(box: SecretBox, integration: AgentIntegrationRecord): Record<string, string> {
  const config = restoreSecrets(integration.auth_config, openSecrets(box, integration.secrets)) as AgentAuthConfig;
  return agentHeaders(integration.auth_type, config);
}
