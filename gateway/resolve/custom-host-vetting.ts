/**
 * Custom-host checks for the hot path. vetOutboundUrl may resolve DNS; its verdict on a URL is
 * kept for a minute so a busy custom host costs one lookup, not one per request. That is safe
 * because the check is repeated where it matters: the guarded agent refuses non-public answers
 * at connect time (gateway/outbound/pinned-lookup.ts). Refusals are not cached, so a fixed DNS
 * record takes effect at once.
 */
import { LRUCache } from 'lru-cache';
import { vetOutboundUrl } from '../outbound/url-guard.js';

const verdicts = new LRUCache<string, { trusted: boolean }>({ max: 2_000, ttl: 60_000 });

/** Where a custom host came from, for a refusal to name: the field (`param`) and, in words, the place. */
export interface CustomHostOrigin {
  param: string;
  source: string;
}

/** Returns whether the host is operator-trusted; throws the guard's error, naming where the host came from, when it is refused. */
export async function vetCustomHost(url: string, trustedHosts: readonly string[], origin: CustomHostOrigin): Promise<{ trusted: boolean }> {
  const key = `${trustedHosts.join(',')}\n${url}`;
  const known = verdicts.get(key);
  if (known) return known;
  const vetted = await vetOutboundUrl(url, { trustedHosts, ...origin, code: 'custom_host_refused' });
  const verdict = { trusted: vetted.trusted };
  verdicts.set(key, verdict);
  return verdict;
}
