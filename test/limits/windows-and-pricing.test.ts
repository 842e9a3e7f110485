/** Reset windows (rate windows, usage periods) on an injected clock, and the bundled pricing table. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costNanoUsd, highestPriceOf, priceOf } from '../../gateway/limits/pricing/cost.js';
import { PRICING_TABLE } from '../../gateway/limits/pricing/pricing-table.js';
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
  test('the table is versioned and prices per provider and model', () => {
    assert.match(PRICING_TABLE.version, /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(priceOf('openai', 'gpt-4o'), { input: 2.5, output: 10 });
    assert.equal(priceOf('openai', 'no-such-model'), undefined);
  });

  test('cost in integer nano-USD, with the integration multiplier', () => {
    const price = priceOf('openai', 'gpt-4o');
    // 11 * 2.5e-6 + 7 * 10e-6 USD = 97.5e-6 USD
    assert.equal(costNanoUsd(price, { prompt_tokens: 11, completion_tokens: 7 }), 97_500);
    assert.equal(costNanoUsd(price, { prompt_tokens: 11, completion_tokens: 7 }, 1.5), 146_250);
    assert.equal(costNanoUsd(undefined, { prompt_tokens: 11, completion_tokens: 7 }), 0);
  });

  test('a reservation without a known provider takes the dearest listed price', () => {
    assert.deepEqual(highestPriceOf('claude-sonnet-4-5'), { input: 3, output: 15 });
  });

  test('expected amounts: a token per four characters, plus max tokens times n', () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(41) }], max_tokens: 7, n: 2 } as ChatRequest;
    assert.deepEqual(expectedAmounts(request, priceOf('openai', 'gpt-4o'), 1), { requests: 1, tokens: 11 + 14, cost: 11 * 2500 + 14 * 10_000 });
  });
});
