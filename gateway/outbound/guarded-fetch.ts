/**
 * fetch for URLs users or operators configure (guardrail webhooks, key sets, identity
 * providers): each URL, and each redirect it answers with, is vetted like a custom host, and the
 * connection goes to the address that was vetted (pinned-lookup.ts), so DNS cannot swap in a
 * private one afterwards. Hosts in TRUSTED_CUSTOM_HOSTS are reached as named. Every answer's body
 * is bounded (answer-cap.ts).
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { answerSource, capAnswer } from './answer-cap.js';
import { pinnedLookup } from './pinned-lookup.js';
import { vetOutboundUrl, type ResolveHost } from './url-guard.js';

export interface GuardedFetchOptions {
  trustedHosts: readonly string[];
  /** Injectable so tests never query real DNS. */
  resolve?: ResolveHost;
  /** Error code for a refused destination. */
  code: string;
  /** Each answer's body fails with AnswerTooLargeError past this many bytes (GW_MAX_UPSTREAM_ANSWER_BYTES). */
  maxAnswerBytes: number;
}

export type GuardedFetch = typeof fetch;

const MAX_REDIRECTS = 5;

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const trustedAgent = new Agent({ connections: 16 });
  const vet = (url: string) => vetOutboundUrl(url, { trustedHosts: options.trustedHosts, resolve: options.resolve, param: 'url', code: options.code });

  const once = async (raw: string, init: RequestInit | undefined): Promise<Response> => {
    const vetted = await vet(raw);
    // One agent per untrusted call: it can only ever connect to the vetted address.
    const dispatcher = vetted.trusted ? trustedAgent : new Agent({ connections: 1, connect: { lookup: pinnedLookup(vetted) } });
    try {
      const response = await undiciFetch(vetted.url, { ...(init as object), redirect: 'manual', dispatcher } as Parameters<typeof undiciFetch>[1]);
      return await capAnswer(response as unknown as Response, options.maxAnswerBytes, answerSource(vetted.url.href));
    } finally {
      // close() lets the request in flight, body included, finish first.
      if (!vetted.trusted) void dispatcher.close();
    }
  };

  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    for (let hop = 0; ; hop++) {
      const response = await once(url, init);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location || init?.redirect === 'manual') return response;
      if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects from ${url}`);
      url = new URL(location, url).href;
      // A redirect turns a POST into a GET (303, and 301/302 as browsers do) without its body.
      if (response.status !== 307 && response.status !== 308) init = { ...init, method: 'GET', body: undefined };
    }
  }) as GuardedFetch;
}
