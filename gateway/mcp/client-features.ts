/**
 * Which server-to-client features gw relays for one MCP server (its relay_logging,
 * relay_sampling and relay_elicitation settings). A feature switched off is not offered on
 * either side: the client is not offered `logging`, the upstream is not offered `sampling` or
 * `elicitation`, and what the upstream sends of it anyway is dropped (log messages) or refused
 * (requests) with a JSON-RPC error that names the setting.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerRecord } from '../../store/repositories/mcp-servers.js';

export interface ClientFeatureRelays {
  slug: string;
  logging: boolean;
  sampling: boolean;
  elicitation: boolean;
}

export const relaysOf = (server: McpServerRecord): ClientFeatureRelays => ({
  slug: server.slug,
  logging: server.relay_logging,
  sampling: server.relay_sampling,
  elicitation: server.relay_elicitation,
});

/** The MCP client's capabilities as gw declares them to the upstream: without what gw does not relay. */
export function offeredUpstream(capabilities: ClientCapabilities, relays: ClientFeatureRelays): ClientCapabilities {
  const { sampling, elicitation, ...rest } = capabilities;
  return { ...rest, ...(relays.sampling && sampling ? { sampling } : {}), ...(relays.elicitation && elicitation ? { elicitation } : {}) };
}

const SETTING_OF: Record<string, keyof Omit<ClientFeatureRelays, 'slug'>> = {
  'notifications/message': 'logging',
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
};

/** Why gw does not relay this upstream message (a sentence), or undefined when it does. */
export function notRelayed(method: string, relays: ClientFeatureRelays): string | undefined {
  const feature = SETTING_OF[method];
  if (!feature || relays[feature]) return undefined;
  return `gw does not relay ${method} from MCP server ${relays.slug}: its relay_${feature} setting is off`;
}
