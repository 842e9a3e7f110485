/**
 * Where gw sends an agent's JSON-RPC, and in which generation, read from its stored card: a 1.0
 * card lists `supportedInterfaces` (gw prefers its 1.0 JSON-RPC one, then 0.3); a 0.3 card names
 * `url` with `preferredTransport` (JSON-RPC when absent) and `additionalInterfaces`. Without a card,
 * the integration's own URL, spoken to in the caller's generation.
 */
import type { A2aVersion } from './protocol.js';

export interface AgentEndpoint {
  url: string;
  /** undefined: unknown (no card), so the caller's generation is used. */
  version: A2aVersion | undefined;
}

interface CardInterface {
  url?: unknown;
  protocolBinding?: unknown;
  transport?: unknown;
  protocolVersion?: unknown;
}

const generationOf = (version: unknown): A2aVersion => (typeof version === 'string' && version.trim().startsWith('0.') ? '0.3' : '1.0');
const isJsonRpc = (binding: unknown) => binding === undefined || String(binding).toUpperCase() === 'JSONRPC';

export function agentEndpoint(card: Record<string, unknown> | null, integrationUrl: string): AgentEndpoint {
  if (!card) return { url: integrationUrl, version: undefined };
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as CardInterface[]) : [];
  const jsonRpc = interfaces.filter((entry) => typeof entry?.url === 'string' && isJsonRpc(entry.protocolBinding));
  const preferred = jsonRpc.find((entry) => generationOf(entry.protocolVersion) === '1.0') ?? jsonRpc[0];
  if (preferred) return { url: preferred.url as string, version: generationOf(preferred.protocolVersion) };
  if (typeof card.url === 'string' && isJsonRpc(card.preferredTransport)) return { url: card.url, version: '0.3' };
  const additional = Array.isArray(card.additionalInterfaces) ? (card.additionalInterfaces as CardInterface[]) : [];
  const other = additional.find((entry) => typeof entry?.url === 'string' && isJsonRpc(entry.transport));
  return { url: (other?.url as string | undefined) ?? integrationUrl, version: '0.3' };
}
