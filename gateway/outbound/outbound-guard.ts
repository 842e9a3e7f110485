/**
 * The one outbound address guard for URLs users save (MCP servers and their token endpoints,
 * secret managers, guardrail webhooks and key sets, identity providers, A2A agents): a URL is
 * vetted at save exactly as the guarded fetch vets it at connect (gateway/outbound/guarded-fetch.ts),
 * names resolved with the same resolver and the same trusted hosts, so a URL refused at connect
 * is refused at save with the same code, and one accepted at save is not refused at connect for
 * its address (unless DNS changed since).
 */
import { createGuardedFetch, type GuardedFetch } from './guarded-fetch.js';
import { vetOutboundUrl, type ResolveHost, type VettedOutboundUrl } from './url-guard.js';

export interface UrlOrigin {
  /** The field the URL came from, named in the error's `param`. */
  param: string;
  /** Error code for a refused destination: the one the connection would answer. */
  code: string;
  /** Where the URL came from, in words, for the message (default: `param`). */
  source?: string;
}

export class OutboundGuard {
  constructor(
    /** config.trustedCustomHosts (TRUSTED_CUSTOM_HOSTS). */
    readonly trustedHosts: readonly string[],
    /** GW_MAX_UPSTREAM_ANSWER_BYTES: the bound on every answer the fetch reads. */
    readonly maxAnswerBytes: number,
    /** Injectable so tests never query real DNS; the system resolver otherwise. */
    readonly resolve?: ResolveHost,
  ) {}

  /** The save-time check: 400 `code` for a non-public address or reserved name, 502 when the name does not resolve. */
  vet(url: string, origin: UrlOrigin): Promise<VettedOutboundUrl> {
    return vetOutboundUrl(url, { trustedHosts: this.trustedHosts, resolve: this.resolve, ...origin });
  }

  /** The connect-time fetch: every URL and redirect vetted the same way, connecting to the vetted address. */
  fetch(code: string): GuardedFetch {
    return createGuardedFetch({ trustedHosts: this.trustedHosts, resolve: this.resolve, maxAnswerBytes: this.maxAnswerBytes, code });
  }
}
