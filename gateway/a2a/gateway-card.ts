/**
 * The agent's card as gw serves it: every endpoint is gw's URL for the agent, which speaks both
 * generations (JSON-RPC, bridged when the agent speaks the other one), so the card names it for
 * both: 0.3 readers take `url`, `preferredTransport` and `protocolVersion`; 1.0 readers take
 * `supportedInterfaces`. The auth schemes are gw's (a gw key, in the card's own generation); the
 * skills are the agent's, narrowed to the integration's allowed skills. gw's own HTTP+JSON (1.0)
 * routes are listed for 1.0 readers (rest-binding.ts); the agent's REST and gRPC interfaces are not
 * (gw talks to the agent over JSON-RPC).
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

export function gatewayCard(integration: AgentIntegrationRecord, gatewayUrl: string): Record<string, unknown> {
  const card = integration.agent_card ?? { name: integration.name, description: integration.description ?? '' };
  const { signatures: _signatures, additionalInterfaces: _additional, security: _security, securityRequirements: _requirements, ...kept } = card as Record<string, unknown>;
  return {
    ...kept,
    url: gatewayUrl,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    supportedInterfaces: [
      { url: gatewayUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: gatewayUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      // gw serves A2A 1.0's HTTP+JSON routes for every agent (relayed to its JSON-RPC).
      { url: gatewayUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    ...securityFor(card),
    skills: allowedSkills(card, integration.allowed_skills),
  };
}
