import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets, sealSecrets, splitSecrets, type SecretsByPath } from '../../store/secret-fields.js';

/** An MCP integration's secret fields: every custom header value, and the OAuth client secret. */
const isMcpSecret = (key: string, path: string) => key === 'client_secret' || path.startsWith('/custom_headers/');

export interface SealedMcpConfigurations {
  /** Safe to store in clear and to answer with. */
  configurations: Record<string, unknown>;
  secrets: string | null;
}

/** Masks and seals the configurations; a masked value sent back unchanged keeps the stored secret. */
export function sealMcpConfigurations(box: SecretBox, configurations: Record<string, unknown>, previousSealed: string | null = null): SealedMcpConfigurations {
  const previous: SecretsByPath = openSecrets(box, previousSealed);
  const { masked, secrets } = splitSecrets(configurations, previous, isMcpSecret);
  return { configurations: masked, secrets: sealSecrets(box, secrets) };
}

export interface McpCredentials {
  custom_headers?: Record<string, string>;
  client_id?: string;
  client_secret?: string;
  token_url?: string;
  scope?: string;
}

/** The configurations with their secrets, for calls to the MCP server only. */
export function openMcpConfigurations(box: SecretBox, stored: { configurations: Record<string, unknown>; secrets: string | null }): McpCredentials {
  return restoreSecrets(stored.configurations, openSecrets(box, stored.secrets)) as McpCredentials;
}
