/**
 * The fetch and URL vetting guardrail checks get (CheckContext): every URL a user put in a
 * guardrail (webhook, key set) is vetted like a custom host, and the connection goes to the
 * address that was vetted (pinned-lookup.ts), so DNS cannot swap in a private one afterwards.
 * Hosts in TRUSTED_CUSTOM_HOSTS are reached as named.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { pinnedLookup } from '../outbound/pinned-lookup.js';
import { vetOutboundUrl, type ResolveHost } from '../outbound/url-guard.js';
import type { CheckContext } from './check-types.js';

export interface GuardedFetchOptions {
  trustedHosts: readonly string[];
  /** Injectable so tests never query real DNS. */
  resolve?: ResolveHost;
}

const REFUSED = 'guardrail_url_refused';

export function guardedCheckTools(options: GuardedFetchOptions): Pick<CheckContext, 'fetch' | 'vetUrl'> {
  const vet = (url: string, param: string) => vetOutboundUrl(url, { trustedHosts: options.trustedHosts, resolve: options.resolve, param, code: REFUSED });
  const trustedAgent = new Agent({ connections: 16 });
  const guardedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const vetted = await vet(raw, 'url');
    // One agent per untrusted call: it can only ever connect to the vetted address.
    const dispatcher = vetted.trusted ? trustedAgent : new Agent({ connections: 1, connect: { lookup: pinnedLookup(vetted) } });
    try {
      const response = await undiciFetch(vetted.url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]);
      return response as unknown as Response;
    } finally {
      if (!vetted.trusted) void dispatcher.close();
    }
  };
  return {
    fetch: guardedFetch as typeof fetch,
    vetUrl: async (url, param) => (await vet(url, param)).url,
  };
}
