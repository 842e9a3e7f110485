/**
 * The route stage against fake upstreams that fail on purpose (429 with Retry-After, 5xx, a hang
 * before headers, a refused connection), with a minimal HTTP attempt standing in for the gateway's
 * transport. Waits are injected, so nothing here sleeps for real except the bounded hang.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MemoryCacheBackend } from '../../gateway/cache/memory-cache-backend.js';
import { ResponseCache } from '../../gateway/cache/response-cache.js';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { isConnectionError, type Outcome } from '../../gateway/routing/outcome.js';
import { routeRequest } from '../../gateway/routing/route-request.js';
import type { Leaf } from '../../gateway/routing/strategy-tree.js';
import { createLogger } from '../../core/logger.js';
import { refusedUrl, startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.js';

type Answer = { body: Record<string, unknown>; host: string };

/** One attempt over fetch: the timeout covers the wait for headers. */
async function attempt(leaf: Leaf, request: Record<string, unknown>, timeoutMs: number): Promise<Outcome<Answer>> {
  const host = String(leaf.settings.custom_host);
  try {
    const response = await fetch(`${host}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${leaf.settings.api_key}` },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) return { ok: false, reason: 'status', status: response.status, error: new Error(JSON.stringify(body)), headers: Object.fromEntries(response.headers) };
    return { ok: true, status: response.status, value: { body, host } };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { ok: false, reason: 'timeout', status: 408, error };
    return { ok: false, reason: isConnectionError(error) ? 'connection' : 'other', status: null, error };
  }
}

const upstreams: FaultUpstream[] = [];
after(async () => Promise.all(upstreams.map((upstream) => upstream.close())));

async function upstream(...script: Parameters<typeof startFaultUpstream>) {
  const started = await startFaultUpstream(...script);
  upstreams.push(started);
  return started;
}

function route(config: ConfigNode, options: { waits?: number[]; timeouts?: number[]; requestTimeoutMs?: number; cache?: ResponseCache; request?: Record<string, unknown> } = {}) {
  return routeRequest<Answer>({
    config,
    request: options.request ?? { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    metadata: {},
    tenant: { organisationId: 'org', workspaceId: 'ws' },
    forceRefresh: false,
    requestTimeoutMs: options.requestTimeoutMs,
    defaultTimeoutMs: 5_000,
    callTarget: (leaf, request, timeoutMs) => {
      options.timeouts?.push(timeoutMs);
      return attempt(leaf, request, timeoutMs);
    },
    cache: options.cache ?? new ResponseCache(new MemoryCacheBackend(1 << 20), undefined, createLogger('silent')),
    random: () => 0.5,
    sleep: async (ms) => void options.waits?.push(ms),
    now: Date.now,
  });
}

describe('routing against failing upstreams', () => {
  test('429 with Retry-After is retried after the asked wait, then served', async () => {
    const fake = await upstream([{ kind: 'status', status: 429, headers: { 'retry-after': '2' } }, { kind: 'ok', content: 'after wait' }]);
    const waits: number[] = [];
    const { outcome, report } = await route({ provider: 'openai', api_key: 'sk', custom_host: fake.url, retry: { attempts: 2, use_retry_after_header: true } }, { waits });
    assert.equal(outcome.ok, true);
    assert.deepEqual(waits, [2000]);
    assert.equal(report.retries, 1);
    assert.equal(fake.received.length, 2);
  });

  test('5xx is retried with backoff; without retry settings it is not', async () => {
    const fake = await upstream([{ kind: 'status', status: 503 }, { kind: 'status', status: 500 }, { kind: 'ok' }]);
    const waits: number[] = [];
    const retried = await route({ provider: 'openai', api_key: 'sk', custom_host: fake.url, retry: { attempts: 3 } }, { waits });
    assert.equal(retried.outcome.ok, true);
    assert.equal(retried.report.retries, 2);
    assert.equal(waits.length, 2);
    const once = await upstream([{ kind: 'status', status: 503 }]);
    const plain = await route({ provider: 'openai', api_key: 'sk', custom_host: once.url });
    assert.equal(plain.outcome.ok, false);
    assert.equal(!plain.outcome.ok && plain.outcome.status, 503);
    assert.equal(once.received.length, 1);
  });

  test('a refused connection is retried, then fallback serves from the next target', async () => {
    const refused = await refusedUrl();
    const good = await upstream([{ kind: 'ok', content: 'second' }]);
    const waits: number[] = [];
    const { outcome, report } = await route({
      strategy: { mode: 'fallback' },
      api_key: 'sk',
      provider: 'openai',
      retry: { attempts: 2 },
      targets: [{ custom_host: refused }, { custom_host: good.url }],
    }, { waits });
    assert.equal(outcome.ok, true);
    assert.equal(waits.length, 2, 'both retries of the refused target waited their backoff');
    assert.equal(report.path, '1');
    assert.deepEqual(
      report.steps.map((step) => [step.path, step.status]),
      [['0', null], ['1', 200]],
    );
    assert.equal(good.received.length, 1);
  });

  test('a hang before headers times out at the target request_timeout and fallback moves on', async () => {
    const hang = await upstream([{ kind: 'hang' }]);
    const good = await upstream([{ kind: 'ok' }]);
    const { outcome, report } = await route({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk', custom_host: hang.url, request_timeout: 100 },
        { provider: 'openai', api_key: 'sk', custom_host: good.url },
      ],
    });
    assert.equal(outcome.ok, true);
    assert.deepEqual(
      report.steps.map((step) => [step.path, step.status]),
      [['0', 408], ['1', 200]],
    );
  });

  test('the whole-request budget cuts a longer target timeout', async () => {
    const hang = await upstream([{ kind: 'hang' }]);
    const timeouts: number[] = [];
    const { outcome } = await route({ provider: 'openai', api_key: 'sk', custom_host: hang.url, request_timeout: 60_000 }, { requestTimeoutMs: 150, timeouts });
    assert.equal(!outcome.ok && outcome.reason, 'timeout');
    assert.equal(timeouts.length, 1);
    assert.ok(timeouts[0]! <= 150, `the attempt got ${timeouts[0]} ms, not the target's 60000`);
  });

  test('fallback on_status_codes: an unlisted status is the answer', async () => {
    const bad = await upstream([{ kind: 'status', status: 400 }]);
    const good = await upstream([{ kind: 'ok' }]);
    const { outcome } = await route({
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      provider: 'openai',
      api_key: 'sk',
      targets: [{ custom_host: bad.url }, { custom_host: good.url }],
    });
    assert.equal(!outcome.ok && outcome.status, 400);
    assert.equal(good.received.length, 0);
  });

  test('override_params reach the upstream; the cache answers the second call per target', async () => {
    const fake = await upstream([{ kind: 'ok', content: 'first' }, { kind: 'ok', content: 'second' }]);
    const cache = new ResponseCache(new MemoryCacheBackend(1 << 20), undefined, createLogger('silent'));
    const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: fake.url, override_params: { temperature: 0 }, cache: { mode: 'simple' } };
    const first = await route(config, { cache });
    assert.equal(first.report.cacheStatus, 'MISS');
    assert.equal(fake.received[0]!.body.temperature, 0);
    assert.ok(first.outcome.ok && first.outcome.value.kind === 'upstream');
    if (first.outcome.ok && first.outcome.value.kind === 'upstream') await first.outcome.value.store(first.outcome.value.answer.body as never);
    const second = await route(config, { cache });
    assert.equal(second.report.cacheStatus, 'HIT');
    assert.equal(fake.received.length, 1);
  });
});
