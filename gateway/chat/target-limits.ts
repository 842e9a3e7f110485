/**
 * The limits set on a saved provider apply to each attempt at a routing target that uses it,
 * however the request got there (`x-gw-provider: @slug`, a virtual key, `@slug/model`, or a
 * config target's `virtual_key` / `provider: "@slug"`). The attempt checks the provider's rate
 * limits and reserves its budget with that provider's price and pricing multiplier before the
 * upstream call. A refusal is a 429 that routing treats as this target's failure (outcome.ts).
 *
 * A failed attempt settles at once, so retries and fallbacks never hold a reservation they do not
 * use; the serving attempt's reservations join the request's, which settle with the real usage
 * once the answer or the stream has ended (settleLimits).
 */
import { actualAmounts, expectedAmounts } from '../limits/request-amounts.js';
import type { Amounts, Reservation } from '../limits/limits-engine.js';
import { priceOf } from '../limits/pricing/cost.js';
import type { ChatRequest, ProviderTarget, Usage } from '../providers/types.js';
import type { ChatState } from './chat-state.js';

const NOTHING: Amounts = { requests: 0, tokens: 0, cost: 0 };

/** Checks and reserves one saved provider's limits for one attempt; throws RateLimitedError on refusal. */
export async function reserveProviderLimits(state: ChatState, slug: string, target: ProviderTarget, request: ChatRequest): Promise<Reservation[]> {
  const { services } = state.call;
  const policies = await services.limitPolicies.forProvider(state.principal.organisationId, state.principal.gatewayWorkspaceId, slug);
  if (!policies.rate.length && !policies.usage.length) return [];
  const facts = { provider: slug };
  const held = await services.limits.checkRateLimits(policies, facts, expectedAmounts(request, undefined, 1));
  try {
    const expected = expectedAmounts(request, priceOf(target.provider, request.model), target.pricingMultiplier ?? 1);
    return [...held, ...(await services.limits.reserveUsage(policies, facts, expected))];
  } catch (error) {
    // Refused by the budget: the attempt never ran, so its rate-limit slots are given back.
    await services.limits.settle(held, NOTHING);
    throw error;
  }
}

/** Settles a failed attempt's reservations: one request, plus whatever usage the upstream reported. */
export async function settleFailedAttempt(state: ChatState, held: readonly Reservation[], target: ProviderTarget, model: string, usage: Usage | undefined): Promise<void> {
  if (!held.length) return;
  await state.call.services.limits.settle(held, actualAmounts(usage, priceOf(target.provider, model), target.pricingMultiplier ?? 1));
}

/** The serving attempt's reservations settle with the request's (run-chat.ts, once the answer has ended). */
export function keepForSettlement(state: ChatState, held: readonly Reservation[]): void {
  if (held.length) state.limitReservations = [...(state.limitReservations ?? []), ...held];
}
