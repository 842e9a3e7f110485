/**
 * Where gw sends an agent's calls, in which generation and over which protocol binding, read from
 * its stored card (so a card refresh changes it): a 1.0 card lists `supportedInterfaces`, a 0.3
 * card names `url` with `preferredTransport` (JSON-RPC when absent) and `additionalInterfaces`.
 * JSON-RPC is preferred whenever the card offers it (1.0 before 0.3); an agent offering only
 * HTTP+JSON is called over that binding (rest-upstream.ts), 1.0 before 0.3. Without a card, the
 * integration's own URL over JSON-RPC, spoken to in the caller's generation.
 */
import type { A2aVersion } from './protocol.js';

export interface AgentEndpoint {
  url: string;
  /** undefined: unknown (no card), so the caller's generation is used. */
  version: A2aVersion | undefined;
  binding: 'jsonrpc' | 'rest';
  /** A 1.0 interface's tenant, sent as the first path segment of HTTP+JSON routes. */
  tenant?: string;
}

interface CardInterface {
  url?: unknown;
  protocolBinding?: unknown;
  transport?: unknown;
  protocolVersion?: unknown;
  tenant?: unknown;
}

const generationOf = (version: unknown): A2aVersion => (typeof version === 'string' && version.trim().startsWith('0.') ? '0.3' : '1.0');
const bindingOf = (name: unknown): AgentEndpoint['binding'] | undefined => {
  const upper = name === undefined ? 'JSONRPC' : String(name).toUpperCase();
  return upper === 'JSONRPC' ? 'jsonrpc' : upper === 'HTTP+JSON' ? 'rest' : undefined;
};

function fromInterfaces(interfaces: CardInterface[]): AgentEndpoint | undefined {
  for (const binding of ['jsonrpc', 'rest'] as const) {
    const offered = interfaces.filter((entry) => typeof entry?.url === 'string' && bindingOf(entry.protocolBinding) === binding);
    const chosen = offered.find((entry) => generationOf(entry.protocolVersion) === '1.0') ?? offered[0];
    if (!chosen) continue;
    const version = generationOf(chosen.protocolVersion);
    const tenant = version === '1.0' && binding === 'rest' && typeof chosen.tenant === 'string' && chosen.tenant !== '' ? chosen.tenant : undefined;
    return { url: chosen.url as string, version, binding, ...(tenant ? { tenant } : {}) };
  }
  return undefined;
}

function fromV03Card(card: Record<string, unknown>): AgentEndpoint | undefined {
  const additional = Array.isArray(card.additionalInterfaces) ? (card.additionalInterfaces as CardInterface[]) : [];
  const main = typeof card.url === 'string' ? [{ url: card.url, transport: card.preferredTransport }] : [];
  for (const binding of ['jsonrpc', 'rest'] as const) {
    const chosen = [...main, ...additional].find((entry) => typeof entry?.url === 'string' && bindingOf(entry.transport) === binding);
    if (chosen) return { url: chosen.url as string, version: '0.3', binding };
  }
  return undefined;
}

export function agentEndpoint(card: Record<string, unknown> | null, integrationUrl: string): AgentEndpoint {
  if (!card) return { url: integrationUrl, version: undefined, binding: 'jsonrpc' };
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as CardInterface[]) : [];
  return fromInterfaces(interfaces) ?? fromV03Card(card) ?? { url: integrationUrl, version: '0.3', binding: 'jsonrpc' };
}
