import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Deadline } from '../../gateway/routing/deadline.js';
import type { Outcome } from '../../gateway/routing/outcome.js';
import { isConnectionError } from '../../gateway/routing/outcome.js';
import { retryAfterMs } from '../../gateway/routing/retry-after.js';
import { MAX_BACKOFF_MS, BASE_BACKOFF_MS, withRetry } from '../../gateway/routing/retry.js';
import type { RetrySettings } from '../../gateway/routing/config-node.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const ok: Outcome<string> = { ok: true, status: 200, value: 'done' };
const failure = (status: number | null, headers?: Record<string, string>, reason: 'status' | 'connection' | 'timeout' | 'guardrail' = 'status'): Outcome<string> => ({
  ok: false,
  reason,
  status,
  error: new Error('x'),
  headers,
});

/** Runs withRetry over scripted outcomes with a recording sleep and a fixed random. */
async function retry(settings: RetrySettings | undefined, script: Outcome<string>[], random = 1 - Number.EPSILON, deadline?: Deadline) {
  const waits: number[] = [];
  let calls = 0;
  const result = await withRetry(settings, async () => script[Math.min(calls++, script.length - 1)]!, {
    sleep: async (ms) => void waits.push(ms),
    random: () => random,
    now: () => NOW,
    deadline,
  });
  return { ...result, calls, waits };
}

describe('retry', () => {
  test('retries the default statuses until success, counting retries', async () => {
    const result = await retry({ attempts: 3 }, [failure(429), failure(503), ok]);
    assert.equal(result.calls, 3);
    assert.equal(result.retries, 2);
    assert.equal(result.outcome.ok, true);
  });

  test('no retry settings means one attempt; attempts are capped at 5', async () => {
    assert.equal((await retry(undefined, [failure(500)])).calls, 1);
    const capped = await retry({ attempts: 9 }, [failure(500)]);
    assert.equal(capped.calls, 6);
    assert.equal(capped.retries, 5);
  });

  test('only on_status_codes are retried (default 429, 500, 502, 503, 504)', async () => {
    assert.equal((await retry({ attempts: 3 }, [failure(400)])).calls, 1);
    assert.equal((await retry({ attempts: 3 }, [failure(501)])).calls, 1);
    assert.equal((await retry({ attempts: 3, on_status_codes: [501] }, [failure(501), ok])).calls, 2);
    assert.equal((await retry({ attempts: 3, on_status_codes: [501] }, [failure(429)])).calls, 1);
    assert.equal((await retry({ attempts: 3 }, [failure(446, undefined, 'guardrail')])).calls, 1, 'guardrail denials are final');
  });

  test('connection errors are retried', async () => {
    assert.equal((await retry({ attempts: 2 }, [failure(null, undefined, 'connection'), ok])).calls, 2);
    assert.ok(isConnectionError(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } })));
    assert.ok(isConnectionError(new Error('socket hang up')));
    assert.ok(!isConnectionError(new Error('bad request')));
  });

  test('exponential backoff with full jitter', async () => {
    const top = await retry({ attempts: 5 }, [failure(500)]);
    assert.deepEqual(
      top.waits.map((wait) => Math.round(wait)),
      [1, 2, 4, 8, 16].map((factor) => Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * factor)),
    );
    const half = await retry({ attempts: 2 }, [failure(500)], 0.5);
    assert.deepEqual(half.waits, [BASE_BACKOFF_MS * 0.5, BASE_BACKOFF_MS]);
  });

  test('Retry-After (seconds or HTTP date) and retry-after-ms are honoured when use_retry_after_header is set', async () => {
    const seconds = await retry({ attempts: 1, use_retry_after_header: true }, [failure(429, { 'retry-after': '2' }), ok]);
    assert.deepEqual(seconds.waits, [2000]);
    const date = await retry({ attempts: 1, use_retry_after_header: true }, [failure(429, { 'retry-after': new Date(NOW + 3000).toUTCString() }), ok]);
    assert.deepEqual(date.waits, [3000]);
    const ms = await retry({ attempts: 1, use_retry_after_header: true }, [failure(429, { 'retry-after-ms': '120', 'retry-after': '9' }), ok]);
    assert.deepEqual(ms.waits, [120]);
    const ignored = await retry({ attempts: 1 }, [failure(429, { 'retry-after': '2' }), ok], 0.5);
    assert.deepEqual(ignored.waits, [BASE_BACKOFF_MS * 0.5]);
    assert.equal(retryAfterMs({ 'retry-after': 'soon' }, NOW), undefined);
  });

  test('the retry budget caps the summed waits; a longer Retry-After ends the retries', async () => {
    const budget = await retry({ attempts: 5, max_retry_wait_ms: 600 }, [failure(500)]);
    assert.equal(budget.waits.reduce((a, b) => a + b, 0), 600);
    assert.deepEqual(budget.waits.slice(0, 2).map(Math.round), [250, 350]);
    const tooLong = await retry({ attempts: 3, use_retry_after_header: true, max_retry_wait_ms: 1000 }, [failure(429, { 'retry-after': '5' })]);
    assert.equal(tooLong.calls, 1);
    assert.deepEqual(tooLong.waits, []);
  });

  test('the whole-request deadline bounds retries', async () => {
    let now = 0;
    const deadline = new Deadline(100, () => now);
    now = 100;
    const result = await retry({ attempts: 5 }, [failure(500)], 0.5, deadline);
    assert.equal(result.calls, 1);
    const clock = new Deadline(1000, () => 0);
    assert.equal(clock.leafTimeout(5000, 300000), 1000);
    assert.equal(clock.leafTimeout(undefined, 200), 200);
  });
});

describe('failure classification', () => {
  test('maps gateway errors to routing outcomes', async () => {
    const { failureFromError } = await import('../../gateway/routing/outcome.js');
    const { UpstreamError, TimeoutError, ApiError } = await import('../../core/errors.js');
    assert.deepEqual(
      [
        failureFromError(new UpstreamError(429, 'slow down'), { 'retry-after': '1' }),
        failureFromError(new TimeoutError('late')),
        failureFromError(new ApiError(446, 'guardrail_denied', 'no', 'guardrail_error')),
        failureFromError(new UpstreamError(502, 'down', 'upstream_error', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })),
        failureFromError(new Error('bug')),
      ].map((failure) => [failure.reason, failure.status, failure.headers?.['retry-after']]),
      [
        ['status', 429, '1'],
        ['timeout', 408, undefined],
        ['guardrail', 446, undefined],
        ['connection', null, undefined],
        ['other', null, undefined],
      ],
    );
  });
});
