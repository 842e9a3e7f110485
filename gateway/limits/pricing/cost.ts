import type { Usage } from '../../providers/types.js';
import { PRICING_TABLE, type ModelPrice, type PricingTable } from './pricing-table.js';

/**
 * Costs are counted in integer nano-USD (1e-9 USD), so Redis INCRBY and sums stay exact:
 * a price of P USD per million tokens is P * 1000 nano-USD per token.
 */
export const NANO_USD_PER_USD = 1e9;

export function priceOf(provider: string, model: string, table: PricingTable = PRICING_TABLE): ModelPrice | undefined {
  return table.providers[provider]?.[model];
}

/** Cost of some usage in nano-USD, with the integration's pricing multiplier; 0 for unpriced models. */
export function costNanoUsd(price: ModelPrice | undefined, usage: Pick<Usage, 'prompt_tokens' | 'completion_tokens'>, multiplier = 1): number {
  if (!price) return 0;
  const base = usage.prompt_tokens * Math.round(price.input * 1000) + usage.completion_tokens * Math.round(price.output * 1000);
  return Math.ceil(base * multiplier);
}

/** When routing may pick among providers, a reservation takes the dearest price listed for the model. */
export function highestPriceOf(model: string, table: PricingTable = PRICING_TABLE): ModelPrice | undefined {
  let highest: ModelPrice | undefined;
  for (const models of Object.values(table.providers)) {
    const price = models[model];
    if (price && (!highest || price.input + price.output > highest.input + highest.output)) highest = price;
  }
  return highest;
}
