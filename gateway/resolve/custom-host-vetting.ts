/**
 * Custom-host checks for the hot path. vetOutboundUrl may resolve DNS; its verdict on a URL is
 * kept for a minute so a busy custom host costs one lookup, not one per request. That is safe
 * because the check is repeated where it matters: the guarded agent refuses non-public answers
 * at connect time (gateway/outbound/pinned-lookup.ts). Refusals are not cached, so a fixed DNS
 * record takes effect at once.
 */
import { InvalidatedCache } from '../invalidated-cache.js';
import type { OutboundGuard } from '../outbound/outbound-guard.js';

type Verdicts = InvalidatedCache<{ trusted: boolean }>;
/** One verdict cache per guard: its trusted hosts and resolver decide the verdicts. */
const verdictsByGuard = new WeakMap<OutboundGuard, Verdicts>();

/** Where a custom host came from, for a refusal to name: the field (`param`) and, in words, the place. */
export interface CustomHostOrigin {
  param: string;
  source: string;
}

/**
 * Returns whether the host is operator-trusted; throws the guard's error, naming where the host
 * came from, when it is refused. The guard is the one saves vet with (services.outbound): same
 * trusted hosts, same resolver, so a custom host accepted at save is accepted here.
 */
export async function vetCustomHost(url: string, outbound: OutboundGuard, origin: CustomHostOrigin): Promise<{ trusted: boolean }> {
  let verdicts = verdictsByGuard.get(outbound);
  if (!verdicts) {
    // Never cleared: a verdict lives its minute (a refusal throws, so it is never kept).
    verdicts = new InvalidatedCache(2_000, 60_000);
    verdictsByGuard.set(outbound, verdicts);
  }
  // Keyed by where the host came from too: a refusal names it, and concurrent first calls share one lookup.
  return (await verdicts.get(`${origin.source}\n${url}`, async () => ({ trusted: (await outbound.vet(url, { ...origin, code: 'custom_host_refused' })).trusted })))!;
}
