/**
 * The agent's card as gw serves it: every endpoint is gw's URL for the agent, which speaks both
 * generations (JSON-RPC, bridged when the agent speaks the other one), so the card names it for
 * both: 0.3 readers take `url`, `preferredTransport` and `protocolVersion`; 1.0 readers take
 * `supportedInterfaces`. The auth schemes are gw's (a gw key, in the card's own generation); the
 * skills are the agent's, narrowed to the integration's allowed skills. gw's own HTTP+JSON routes
 * are listed too, for both generations (rest-binding.ts for 1.0, rest-v03-binding.ts for 0.3):
 * in `supportedInterfaces` for 1.0 readers, in `additionalInterfaces` for 0.3 readers. The agent's
 * own interfaces are not (gw is the one talking to the agent). A tenant the agent's 1.0 card
 * declares is kept on gw's 1.0 interfaces, so 1.0 clients name it (a route prefix over HTTP+JSON,
 * `params.tenant` over JSON-RPC) and gw relays it.
 */
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';

const GW_SCHEME = 'gwApiKey';

function securityFor(card: Record<string, unknown>): Record<string, unknown> {
  // A 1.0 card (supportedInterfaces) carries 1.0 security objects; a 0.3 card OpenAPI-shaped ones.
  if (Array.isArray(card.supportedInterfaces)) {
    return {
      securitySchemes: { [GW_SCHEME]: { apiKeySecurityScheme: { location: 'header', name: 'x-gw-api-key', description: 'A gw API key with the agents.invoke scope' } } },
      securityRequirements: [{ schemes: { [GW_SCHEME]: { list: [] } } }],
    };
  }
  return {
    securitySchemes: { [GW_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-gw-api-key', description: 'A gw API key with the agents.invoke scope' } },
    security: [{ [GW_SCHEME]: [] }],
  };
}

function allowedSkills(card: Record<string, unknown>, allowed: string[] | null): unknown[] {
  const skills = Array.isArray(card.skills) ? card.skills : [];
  const narrowed = allowed === null ? skills : skills.filter((skill) => allowed.includes(String((skill as { id?: unknown })?.id)));
  // Skill-level security names the agent's own schemes, which callers of gw do not use.
  return narrowed.map((skill) => {
    const { security: _security, securityRequirements: _requirements, ...rest } = skill as Record<string, unknown>;
    return rest;
  });
}

/** The tenant the agent's 1.0 card declares on its interfaces (the first non-empty one), if any. */
function agentTenant(card: Record<string, unknown>): string | undefined {
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as Array<{ tenant?: unknown }>) : [];
  const tenant = interfaces.find((entry) => typeof entry?.tenant === 'string' && entry.tenant !== '')?.tenant;
  return tenant as string | undefined;
}

export function gatewayCard(integration: AgentIntegrationRecord, gatewayUrl: string): Record<string, unknown> {
  const card = integration.agent_card ?? { name: integration.name, description: integration.description ?? '' };
  const { signatures: _signatures, additionalInterfaces: _additional, security: _security, securityRequirements: _requirements, ...kept } = card as Record<string, unknown>;
  const declared = agentTenant(card as Record<string, unknown>);
  const tenant = declared === undefined ? {} : { tenant: declared };
  return {
    ...kept,
    url: gatewayUrl,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    supportedInterfaces: [
      { url: gatewayUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0', ...tenant },
      { url: gatewayUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      // gw serves both generations' HTTP+JSON routes for every agent (relayed to its JSON-RPC).
      { url: gatewayUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', ...tenant },
      { url: gatewayUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    additionalInterfaces: [
      { url: gatewayUrl, transport: 'JSONRPC' },
      { url: gatewayUrl, transport: 'HTTP+JSON' },
    ],
    ...securityFor(card),
    skills: allowedSkills(card, integration.allowed_skills),
  };
}
