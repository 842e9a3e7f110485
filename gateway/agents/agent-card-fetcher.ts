/**
 * Reads an A2A agent card from an agent's endpoint. The endpoint, and every redirect it answers
 * with, passes the outbound address guard (the guarded fetch); the body is read as a stream and
 * reading stops once it passes 1 MB, so a huge or endless answer costs at most that much memory;
 * one deadline covers connecting, headers and body. Each refusal names what was wrong.
 */
import { ApiError, TimeoutError, ValidationError } from '../../core/errors.js';
import { connectionFailure, type GuardedFetch, type TlsClient } from '../outbound/guarded-fetch.js';

export const AGENT_CARD_MAX_BYTES = 1024 * 1024;
/** Where A2A agents publish their card, under the endpoint's path. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface FetchedAgentCard {
  url: string;
  agent_card: Record<string, unknown> & { name: string; url?: string };
}

/** The card's URL: the endpoint itself when it already names a JSON document, else its well-known path. */
export function agentCardUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname.endsWith('.json')) return url.href;
  url.pathname = url.pathname.replace(/\/+$/, '') + AGENT_CARD_PATH;
  return url.href;
}

function refused(code: string, message: string, param: string | null = 'url'): ValidationError {
  return new ValidationError(message, param, code);
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** A 1.0 card names its endpoints in `supportedInterfaces[].url` instead of a top-level `url`. */
function hasInterfaceUrl(card: Record<string, unknown>): boolean {
  const interfaces = card.supportedInterfaces;
  return Array.isArray(interfaces) && interfaces.some((entry) => isText((entry as { url?: unknown } | null)?.url));
}

/** A card must be a JSON object with a non-empty `name` and an endpoint: `url` (A2A 0.3) or `supportedInterfaces[].url` (1.0). */
export function assertAgentCard(card: unknown, where: string): asserts card is FetchedAgentCard['agent_card'] {
  if (!card || typeof card !== 'object' || Array.isArray(card)) {
    throw refused('agent_card_not_object', `${where} is JSON but not a JSON object, so it is not an agent card`);
  }
  const fields = card as Record<string, unknown>;
  if (!isText(fields.url) && !hasInterfaceUrl(fields)) {
    throw refused('agent_card_missing_field', `${where} is not an agent card: it has no "url" (A2A 0.3) and no "supportedInterfaces" with a url (A2A 1.0)`, 'agent_card.url');
  }
  if (!isText(fields.name)) throw refused('agent_card_missing_field', `${where} is not an agent card: it has no "name"`, 'agent_card.name');
}

async function readCapped(response: Response, where: string): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > AGENT_CARD_MAX_BYTES) {
    await response.body?.cancel();
    throw refused('agent_card_too_large', `${where} is ${declared} bytes; an agent card may be at most 1 MB`);
  }
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > AGENT_CARD_MAX_BYTES) {
      // Stop here: the rest is never read, and the connection is closed.
      await reader.cancel();
      throw refused('agent_card_too_large', `${where} is over 1 MB; an agent card may be at most 1 MB`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

export class AgentCardFetcher {
  constructor(
    private readonly fetch: GuardedFetch,
    private readonly timeoutMs: number,
  ) {}

  async fetchCard(endpoint: string, headers: Record<string, string>, tlsClient?: TlsClient): Promise<FetchedAgentCard> {
    const url = agentCardUrl(endpoint);
    const signal = AbortSignal.timeout(this.timeoutMs);
    const timedOut = () => new TimeoutError(`${url} did not answer with an agent card within ${this.timeoutMs} ms`);
    let body: Buffer;
    try {
      const response = await this.fetch(url, { headers: { accept: 'application/json', ...headers }, signal, tlsClient });
      if (response.status < 200 || response.status >= 300) {
        await response.body?.cancel();
        throw new ApiError(502, 'agent_card_fetch_failed', `${url} answered HTTP ${response.status}, not an agent card`, 'upstream_error', { param: 'url' });
      }
      body = await readCapped(response, url);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (signal.aborted) throw timedOut();
      throw new ApiError(502, 'agent_card_fetch_failed', `${url} could not be reached: ${connectionFailure(error)}`, 'upstream_error', { param: 'url' });
    }
    let card: unknown;
    try {
      card = JSON.parse(body.toString('utf8'));
    } catch {
      throw refused('agent_card_not_json', `${url} did not answer JSON, so it is not an agent card`);
    }
    assertAgentCard(card, url);
    return { url, agent_card: card };
  }
}
