/**
 * fetch for URLs users or operators configure (guardrail webhooks, key sets, identity
 * providers): each URL, and each redirect it answers with, is vetted like a custom host, and the
 * connection goes to the address that was vetted (pinned-lookup.ts), so DNS cannot swap in a
 * private one afterwards. Hosts in TRUSTED_CUSTOM_HOSTS are reached as named. Every answer's body
 * is bounded (answer-cap.ts). A call may carry a client certificate (`tlsClient`: an mTLS
 * agent's card fetch): it is presented on that call's own connection only, never pooled.
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

/** A client certificate and key (PEM) to present, and the CAs trusted for the server's certificate (PEM; the system's when absent). */
export interface TlsClient {
  cert: string;
  key: string;
  ca?: string;
}

/** fetch, whose init may also name a client certificate. */
export type GuardedFetch = (input: string | URL | Request, init?: RequestInit & { tlsClient?: TlsClient }) => Promise<Response>;

const MAX_REDIRECTS = 5;

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const trustedAgent = new Agent({ connections: 16 });
  const vet = (url: string) => vetOutboundUrl(url, { trustedHosts: options.trustedHosts, resolve: options.resolve, param: 'url', code: options.code });

  const once = async (raw: string, init: (RequestInit & { tlsClient?: TlsClient }) | undefined): Promise<Response> => {
    const vetted = await vet(raw);
    const { tlsClient, ...rest } = init ?? {};
    const tls = tlsClient ? { cert: tlsClient.cert, key: tlsClient.key, ...(tlsClient.ca ? { ca: tlsClient.ca } : {}) } : {};
    // One agent per untrusted or mTLS call: it can only ever connect to the vetted address, with that certificate.
    const own = !vetted.trusted || tlsClient !== undefined;
    const dispatcher = own ? new Agent({ connections: 1, connect: { ...(vetted.trusted ? {} : { lookup: pinnedLookup(vetted) }), ...tls } }) : trustedAgent;
    try {
      const response = await undiciFetch(vetted.url, { ...(rest as object), redirect: 'manual', dispatcher } as Parameters<typeof undiciFetch>[1]);
      return await capAnswer(response as unknown as Response, options.maxAnswerBytes, answerSource(vetted.url.href));
    } finally {
      // close() lets the request in flight, body included, finish first.
      if (own) void dispatcher.close();
    }
  };

  return (async (input: string | URL | Request, init?: RequestInit & { tlsClient?: TlsClient }): Promise<Response> => {
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

/** What went wrong on a connection: fetch says only "fetch failed", its cause says why (a refused client certificate, say). */
export function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const message = (error as Error)?.message ?? String(error);
  return cause instanceof Error && cause.message ? `${message} (${cause.message})` : message;
}
