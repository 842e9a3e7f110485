/**
 * The fetch and URL vetting guardrail checks get (CheckContext): every URL a user put in a
 * guardrail (webhook, key set) goes through the outbound guard (gateway/outbound/guarded-fetch.ts).
 */
import { createGuardedFetch } from '../outbound/guarded-fetch.js';
import { vetOutboundUrl, type ResolveHost } from '../outbound/url-guard.js';
import type { CheckContext } from './check-types.js';

export interface GuardedFetchOptions {
  trustedHosts: readonly string[];
  /** Injectable so tests never query real DNS. */
  resolve?: ResolveHost;
  /** GW_MAX_UPSTREAM_ANSWER_BYTES. */
  maxAnswerBytes: number;
}

const REFUSED = 'guardrail_url_refused';

export function guardedCheckTools(options: GuardedFetchOptions): Pick<CheckContext, 'fetch' | 'vetUrl'> {
  return {
    fetch: createGuardedFetch({ ...options, code: REFUSED }),
    vetUrl: async (url, param) => (await vetOutboundUrl(url, { trustedHosts: options.trustedHosts, resolve: options.resolve, param, code: REFUSED })).url,
  };
}
