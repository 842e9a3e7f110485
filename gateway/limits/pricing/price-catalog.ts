/**
 * Model prices from a maintained catalog: `@pydantic/genai-prices` (npm), which tracks the
 * providers' published prices per model, with cached-input, cache-write and tiered prices.
 * Upgrading the package updates the prices; `PRICE_CATALOG_VERSION` names the data in use.
 *
 * The catalog's own calculator takes about 0.1 ms per call, too slow for every request, so a
 * model's price record is looked up once and kept (a few minutes, so dated price changes in the
 * catalog take effect), and costs are computed from it here (cost.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { calcPrice, type ModelPrice as CatalogPrice, type TieredPrices } from '@pydantic/genai-prices';
import { ExpiringMap } from '../../../core/expiring-map.js';

/** USD per million tokens; a tiered rate applies to the whole request once its input passes a tier's start. */
export type Rate = number | TieredPrices;

export interface ModelPrice {
  input: Rate;
  output: Rate;
  /** Input tokens read from the provider's prompt cache (default: the input rate). */
  cacheRead?: Rate;
  /** Input tokens written to the provider's prompt cache (default: the input rate). */
  cacheWrite?: Rate;
  /** Reasoning tokens, when the catalog prices them apart from output (default: the output rate). */
  reasoning?: Rate;
}

/** The catalog package and version whose prices are in use (its package.json is not exported, so it is read beside its entry). */
export const PRICE_CATALOG_VERSION = ((): string => {
  const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
  const manifest = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { name: string; version: string };
  return `${manifest.name}@${manifest.version}`;
})();

/**
 * gw's provider names -> the catalog's providers, in the order tried. Self-hosted providers
 * (ollama, vllm) and hosts the catalog does not list have no entry: their models are unpriced.
 */
const CATALOG_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  openai: ['openai'],
  'azure-openai': ['azure', 'openai'],
  anthropic: ['anthropic'],
  google: ['google'],
  'vertex-ai': ['google', 'anthropic'],
  bedrock: ['aws'],
  groq: ['groq'],
  'mistral-ai': ['mistral'],
  'together-ai': ['together'],
  'fireworks-ai': ['fireworks'],
  deepseek: ['deepseek'],
  openrouter: ['openrouter'],
  'perplexity-ai': ['perplexity'],
  'x-ai': ['x-ai'],
  cerebras: ['cerebras'],
  cohere: ['cohere'],
};

/** How long a looked-up price is kept before the catalog is asked again. */
const PRICE_TTL_MS = 10 * 60_000;
const NO_USAGE = {};

/** Looked-up prices by provider and model (null: the catalog does not know it), looked up again after PRICE_TTL_MS. */
const cache = new ExpiringMap<{ price: ModelPrice | null }>(5000, PRICE_TTL_MS);

function fromCatalog(price: CatalogPrice): ModelPrice | null {
  const input = price.input_mtok;
  const output = price.output_mtok;
  if (input === undefined) return null;
  // Embedding models are priced for input only: they produce no output tokens.
  return { input, output: output ?? 0, cacheRead: price.cache_read_mtok, cacheWrite: price.cache_write_mtok, reasoning: price.output_reasoning_mtok };
}

function lookUp(provider: string, model: string): ModelPrice | null {
  for (const providerId of CATALOG_PROVIDERS[provider] ?? []) {
    const found = calcPrice(NO_USAGE, model, { providerId });
    if (found) return fromCatalog(found.model_price);
  }
  return null;
}

/** The price of a gw provider's model, or undefined when the catalog does not know it (unpriced). */
export function priceOf(provider: string, model: string): ModelPrice | undefined {
  const key = `${provider}\u0000${model}`;
  let entry = cache.get(key);
  if (!entry) {
    entry = { price: lookUp(provider, model) };
    cache.set(key, entry);
  }
  return entry.price ?? undefined;
}

/** When routing may pick among providers, a reservation takes the dearest price the catalog lists for the model. */
export function highestPriceOf(model: string): ModelPrice | undefined {
  let highest: ModelPrice | undefined;
  let highestSum = -1;
  for (const provider of Object.keys(CATALOG_PROVIDERS)) {
    const price = priceOf(provider, model);
    if (!price) continue;
    const sum = baseRate(price.input) + baseRate(price.output);
    if (sum > highestSum) {
      highest = price;
      highestSum = sum;
    }
  }
  return highest;
}

function baseRate(rate: Rate): number {
  return typeof rate === 'number' ? rate : rate.base;
}

/** The rate that applies to a request with `inputTokens` input tokens. */
export function rateAt(rate: Rate, inputTokens: number): number {
  if (typeof rate === 'number') return rate;
  let applied = rate.base;
  for (const tier of rate.tiers) if (inputTokens > tier.start) applied = tier.price;
  return applied;
}
