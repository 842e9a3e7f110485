import type { Usage } from '../../providers/types.js';
import { rateAt, type ModelPrice } from './price-catalog.js';

export { highestPriceOf, priceOf, PRICE_CATALOG_VERSION, type ModelPrice } from './price-catalog.js';

/**
 * Costs are counted in integer nano-USD (1e-9 USD), so Redis INCRBY and sums stay exact. Rates are
 * taken to pico-USD per token first (a price of P USD per million tokens is P * 1e6 pico-USD per
 * token), so catalog prices with sub-nano per-token rates are not rounded away.
 */
export const NANO_USD_PER_USD = 1e9;

export type PricedUsage = Pick<Usage, 'prompt_tokens' | 'completion_tokens' | 'prompt_tokens_details' | 'completion_tokens_details'>;

function picoPerToken(rate: number): number {
  return Math.round(rate * 1e6);
}

/**
 * Cost of some usage in nano-USD, with the integration's pricing multiplier; 0 for an unpriced
 * model (undefined price), which callers report as unpriced rather than free. `prompt_tokens`
 * includes cached reads and cache writes, `completion_tokens` includes reasoning (OpenAI's usage
 * semantics, which every adapter reports in); each part is priced at its own rate when the catalog
 * has one.
 */
export function costNanoUsd(price: ModelPrice | undefined, usage: PricedUsage, multiplier = 1): number {
  if (!price) return 0;
  const input = usage.prompt_tokens;
  const cacheRead = Math.min(usage.prompt_tokens_details?.cached_tokens ?? 0, input);
  const cacheWrite = Math.min(usage.prompt_tokens_details?.cache_creation_tokens ?? 0, input - cacheRead);
  const reasoning = Math.min(usage.completion_tokens_details?.reasoning_tokens ?? 0, usage.completion_tokens);
  const inputRate = rateAt(price.input, input);
  const outputRate = rateAt(price.output, input);
  const pico =
    (input - cacheRead - cacheWrite) * picoPerToken(inputRate) +
    cacheRead * picoPerToken(price.cacheRead === undefined ? inputRate : rateAt(price.cacheRead, input)) +
    cacheWrite * picoPerToken(price.cacheWrite === undefined ? inputRate : rateAt(price.cacheWrite, input)) +
    (usage.completion_tokens - reasoning) * picoPerToken(outputRate) +
    reasoning * picoPerToken(price.reasoning === undefined ? outputRate : rateAt(price.reasoning, input));
  return Math.ceil((pico / 1000) * multiplier);
}
