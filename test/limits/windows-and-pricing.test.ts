/** Reset windows (rate windows, usage periods) on an injected clock, and the bundled pricing table. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costNanoUsd, highestPriceOf, priceOf, PRICE_CATALOG_VERSION } from '../../gateway/limits/pricing/cost.js';
import { expectedAmounts } from '../../gateway/limits/request-amounts.js';
import { rateWindow, usagePeriod, utcMidnight } from '../../gateway/limits/windows.js';
import type { ChatRequest } from '../../gateway/providers/types.js';

const at = (iso: string) => Date.parse(iso);

describe('rate windows', () => {
  test('fixed windows aligned to the UTC minute, hour and day', () => {
    const now = at('2026-03-10T13:45:30.500Z');
    assert.deepEqual(rateWindow('minute', now), { start: at('2026-03-10T13:45:00Z'), end: at('2026-03-10T13:46:00Z') });
    assert.deepEqual(rateWindow('hour', now), { start: at('2026-03-10T13:00:00Z'), end: at('2026-03-10T14:00:00Z') });
    assert.deepEqual(rateWindow('day', now), { start: at('2026-03-10T00:00:00Z'), end: at('2026-03-11T00:00:00Z') });
  });
});

describe('usage periods', () => {
  const anchor = utcMidnight(at('2026-01-15T17:20:00Z'));

  test('the anchor is the UTC midnight of the creation day', () => {
    assert.equal(anchor, at('2026-01-15T00:00:00Z'));
  });

  test('periodic_reset_days rolls every N days from the anchor', () => {
    const rule = { periodic_reset: null, periodic_reset_days: 10, anchor };
    assert.deepEqual(usagePeriod(rule, at('2026-01-20T00:00:00Z')), { start: anchor, end: at('2026-01-25T00:00:00Z') });
    assert.deepEqual(usagePeriod(rule, at('2026-01-25T00:00:00Z')), { start: at('2026-01-25T00:00:00Z'), end: at('2026-02-04T00:00:00Z') });
  });

  test('weekly is every 7 days', () => {
    const rule = { periodic_reset: 'weekly' as const, periodic_reset_days: null, anchor };
    assert.deepEqual(usagePeriod(rule, at('2026-01-29T08:00:00Z')), { start: at('2026-01-29T00:00:00Z'), end: at('2026-02-05T00:00:00Z') });
  });

  test('monthly resets on the first of each calendar month (the first period starts at the anchor)', () => {
    const rule = { periodic_reset: 'monthly' as const, periodic_reset_days: null, anchor };
    assert.deepEqual(usagePeriod(rule, at('2026-01-31T23:59:59Z')), { start: anchor, end: at('2026-02-01T00:00:00Z') });
    assert.deepEqual(usagePeriod(rule, at('2026-12-02T00:00:00Z')), { start: at('2026-12-01T00:00:00Z'), end: at('2027-01-01T00:00:00Z') });
  });

  test('no reset rule: one period that never ends', () => {
    assert.deepEqual(usagePeriod({ periodic_reset: null, periodic_reset_days: null, anchor }, at('2030-01-01T00:00:00Z')), { start: anchor, end: null });
  });
});

describe('pricing', () => {
  test('prices come from the maintained catalog package, per gw provider and model', () => {
    assert.match(PRICE_CATALOG_VERSION, /^@pydantic\/genai-prices@\d+\.\d+\.\d+$/);
    assert.deepEqual(priceOf('openai', 'gpt-4o'), { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: undefined, reasoning: undefined });
    // Models beyond any hand-kept table: other hosts, dated ids, Bedrock inference profiles.
    for (const [provider, model] of [
      ['mistral-ai', 'mistral-large-latest'],
      ['deepseek', 'deepseek-chat'],
      ['bedrock', 'us.anthropic.claude-3-5-haiku-20241022-v1:0'],
      ['azure-openai', 'gpt-4o-mini'],
      ['vertex-ai', 'claude-sonnet-4-5'],
      ['x-ai', 'grok-3'],
    ]) {
      assert.ok(priceOf(provider!, model!), `${provider} ${model} is priced`);
    }
    assert.equal(priceOf('openai', 'no-such-model'), undefined);
    assert.equal(priceOf('ollama', 'llama3.2'), undefined, 'self-hosted models are unpriced, not free');
  });

  test('cost in integer nano-USD, with the integration multiplier', () => {
    const price = priceOf('openai', 'gpt-4o');
    // 11 * 2.5e-6 + 7 * 10e-6 USD = 97.5e-6 USD
    assert.equal(costNanoUsd(price, { prompt_tokens: 11, completion_tokens: 7 }), 97_500);
    assert.equal(costNanoUsd(price, { prompt_tokens: 11, completion_tokens: 7 }, 1.5), 146_250);
    assert.equal(costNanoUsd(undefined, { prompt_tokens: 11, completion_tokens: 7 }), 0);
  });

  test('cached input, cache writes and reasoning are priced at their own rates', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, reasoning: 20 };
    const usage = { prompt_tokens: 1000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 600, cache_creation_tokens: 300 }, completion_tokens_details: { reasoning_tokens: 40 } };
    // 100 plain input * 3 + 600 read * 0.3 + 300 written * 3.75 + 60 output * 15 + 40 reasoning * 20, per million, in nano-USD
    assert.equal(costNanoUsd(price, usage), (100 * 3 + 600 * 0.3 + 300 * 3.75 + 60 * 15 + 40 * 20) * 1000);
    // Without their own rates, cached tokens cost input and reasoning costs output.
    assert.equal(costNanoUsd({ input: 3, output: 15 }, usage), (1000 * 3 + 100 * 15) * 1000);
  });

  test('a tiered rate applies to the whole request once its input passes the tier', () => {
    const price = { input: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] }, output: { base: 10, tiers: [{ start: 200_000, price: 15 }] } } as never;
    assert.equal(costNanoUsd(price, { prompt_tokens: 200_000, completion_tokens: 10 }), 200_000 * 1250 + 10 * 10_000);
    assert.equal(costNanoUsd(price, { prompt_tokens: 200_001, completion_tokens: 10 }), 200_001 * 2500 + 10 * 15_000);
  });

  test('a reservation without a known provider takes the dearest price the catalog lists', () => {
    const highest = highestPriceOf('claude-sonnet-4-5');
    assert.ok(highest);
    // Anthropic's own price is 3 USD per million input tokens; no listed provider is cheaper than the dearest.
    assert.ok(costNanoUsd(highest, { prompt_tokens: 1_000_000, completion_tokens: 0 }) >= 3e9);
    assert.equal(highestPriceOf('no-such-model-anywhere'), undefined);
  });

  test('expected amounts: a token per four characters, plus max tokens times n; unpriced models are flagged', () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(41) }], max_tokens: 7, n: 2 } as ChatRequest;
    assert.deepEqual(expectedAmounts(request, priceOf('openai', 'gpt-4o'), 1), { requests: 1, tokens: 11 + 14, cost: 11 * 2500 + 14 * 10_000 });
    assert.deepEqual(expectedAmounts({ ...request, model: 'mystery' }, undefined, 1), { requests: 1, tokens: 25, cost: 0, unpriced: true });
  });
});
