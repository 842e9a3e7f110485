/**
 * The limits stages of the chat pipeline: rate limits, then the usage-limit reservation, both
 * before any upstream call; and the settlement with the real usage once the answer (or the
 * stream) has ended. Policies come from memory (LimitPolicies), counters from the LimitsEngine.
 */
import { expectedAmounts, actualAmounts } from '../limits/request-amounts.js';
import { highestPriceOf, priceOf } from '../limits/pricing/cost.js';
import type { ModelPrice } from '../limits/pricing/price-catalog.js';
import { requestFacts } from '../limits/policy-match.js';
import type { ChatStage, ChatState, LimitInputs } from './chat-state.js';

/** The saved provider a request named (`@slug`, virtual key, `@slug/model`); undefined for configs and inline providers. */
function savedProviderSlug(state: ChatState): string | undefined {
  const slug = (state.plan!.config as { virtual_key?: unknown }).virtual_key;
  return typeof slug === 'string' ? slug.replace(/^@/, '') : undefined;
}

/**
 * What both limit stages look at, worked out once per request: organisation policies plus the
 * limits on the request's key and workspace (a saved provider's own limits apply per attempt,
 * target-limits.ts), and the request's facts that conditions and group_by read.
 */
async function limitInputs(state: ChatState): Promise<LimitInputs> {
  if (state.limitInputs) return state.limitInputs;
  const { principal } = state;
  // Callers without a key (JWT, session, OAuth token) match no key-owned policy.
  const apiKeyId = principal.keyId ?? '';
  const policies = await state.call.services.limitPolicies.forRequest({
    organisationId: principal.organisationId,
    apiKeyId,
    workspaceId: principal.gatewayWorkspaceId,
  });
  const facts = requestFacts({ apiKeyId, workspaceId: principal.gatewayWorkspaceId, metadata: state.headers?.metadata });
  facts.provider = savedProviderSlug(state);
  state.limitInputs = { policies, facts };
  return state.limitInputs;
}

/** The price and multiplier a reservation assumes: the saved or named provider's when known, else the dearest. */
async function reservationPricing(state: ChatState): Promise<{ price: ModelPrice | undefined; multiplier: number }> {
  const config = state.plan!.config as { provider?: unknown; virtual_key?: unknown };
  const model = state.request.model;
  if (typeof config.virtual_key === 'string') {
    const saved = await state.call.services.savedResources.provider(state.principal.organisationId, state.principal.gatewayWorkspaceId, config.virtual_key);
    if (saved) return { price: priceOf(saved.target.provider, model), multiplier: saved.pricing_multiplier };
  }
  if (typeof config.provider === 'string' && !config.provider.startsWith('@')) return { price: priceOf(config.provider, model), multiplier: 1 };
  return { price: highestPriceOf(model), multiplier: 1 };
}

export const rateLimits: ChatStage = {
  name: 'rate-limits',
  async run(state) {
    const { services } = state.call;
    const { policies, facts } = await limitInputs(state);
    if (!policies.rate.length) return;
    const expected = expectedAmounts(state.request, undefined, 1);
    state.limitReservations = [...(state.limitReservations ?? []), ...(await services.limits.checkRateLimits(policies, facts, expected))];
  },
};

export const usageLimitsReserve: ChatStage = {
  name: 'usage-limits-reserve',
  async run(state) {
    const { services } = state.call;
    const { policies, facts } = await limitInputs(state);
    if (!policies.usage.length) return;
    const pricing = await reservationPricing(state);
    const expected = expectedAmounts(state.request, pricing.price, pricing.multiplier);
    state.limitReservations = [...(state.limitReservations ?? []), ...(await services.limits.reserveUsage(policies, facts, expected))];
  },
};

/**
 * Called once the request is over, for the request's reservations and those of the attempt that
 * served (a saved provider's, target-limits.ts), priced as that attempt. A cache hit used no
 * provider tokens, so it costs nothing.
 */
export async function settleLimits(state: ChatState): Promise<void> {
  const reservations = state.limitReservations;
  if (!reservations?.length) return;
  state.limitReservations = undefined;
  const fromProvider = state.cacheStatus !== 'HIT' && state.cacheStatus !== 'SEMANTIC HIT';
  const price = state.provider && state.model ? priceOf(state.provider, state.model) : undefined;
  const actual = actualAmounts(fromProvider ? state.usage : undefined, price, state.pricingMultiplier ?? 1);
  await state.call.services.limits.settle(reservations, actual);
}
