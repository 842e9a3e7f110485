/**
 * GET /metrics after known traffic: every gateway family counts exactly what was sent (requests,
 * errors, latency, overhead, upstream time, time to first token, tokens, cost, unpriced models,
 * cache, guardrails, limit refusals, retries, fallbacks), plus the log queue and Node's own
 * metrics; the token protects it, the separate listener serves it, and labels stay bounded.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BoundedLabel } from '../../gateway/telemetry/bounded-label.js';
import { GatewayMetrics } from '../../gateway/telemetry/gateway-metrics.js';
import { createMetricsServer } from '../../server/metrics-server.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { clockFromMinuteStart } from '../helpers/minute-clock.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { parsePrometheus, valueOf, type Sample } from './prometheus-text.js';

const TOKEN = 'metrics-token-0123456789';
const chatRoute = { route: 'chat.completions' };

describe('GET /metrics', () => {
  let gw: GatewayApp;
  let samples: Sample[];
  const sent = { ok: 0 };

  before(async () => {
    gw = await startGatewayApp({ env: { GW_METRICS_TOKEN: TOKEN }, now: clockFromMinuteStart() });
    const inline = { 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' };
    const config = (value: unknown) => ({ 'x-gw-config': JSON.stringify(value) });
    const post = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
      gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, ...headers })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }], ...body });

    for (let i = 0; i < 3; i++) assert.equal((await post(inline)).status, 200);
    const stream = await post(inline, { stream: true });
    assert.equal(stream.status, 200);
    gw.fake.next({ kind: 'error', status: 429, message: 'slow down' });
    assert.equal((await post(inline)).status, 429);
    assert.equal((await post(inline, { model: 'my-private-finetune' })).status, 200);

    const leaf = { provider: 'openai', api_key: 'sk', custom_host: gw.fake.url };
    const cached = config({ ...leaf, cache: { mode: 'simple', max_age: 60 } });
    assert.equal((await post(cached, { messages: [{ role: 'user', content: 'cache me' }] })).headers['x-gw-cache-status'], 'MISS');
    assert.equal((await post(cached, { messages: [{ role: 'user', content: 'cache me' }] })).headers['x-gw-cache-status'], 'HIT');

    gw.fake.next({ kind: 'error', status: 500 });
    assert.equal((await post(config({ ...leaf, retry: { attempts: 1 } }))).status, 200);

    gw.fake.next({ kind: 'error', status: 503 });
    assert.equal((await post(config({ strategy: { mode: 'fallback' }, targets: [leaf, leaf] }))).status, 200);

    const guardrail = { checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } };
    assert.equal((await post(config({ ...leaf, input_guardrails: [guardrail] }))).status, 200);
    assert.equal((await post(config({ ...leaf, input_guardrails: [guardrail] }), { messages: [{ role: 'user', content: 'forbidden' }] })).status, 446);

    const policy = await gw.app.http
      .post('/v2/policies/rate-limits')
      .set('x-gw-api-key', gw.app.adminKey)
      .send({ name: 'one', type: 'requests', unit: 'minute', value: 1, conditions: [{ key: 'metadata.test', value: 'limited' }] });
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const limited = { ...inline, 'x-gw-metadata': JSON.stringify({ test: 'limited' }) };
    assert.equal((await post(limited)).status, 200);
    assert.equal((await post(limited)).status, 429);

    sent.ok = 3 + 1 + 1 + 2 + 1 + 1 + 1 + 1;
    await logsSettled(gw, 14);
    const response = await gw.app.http.get('/metrics').set('authorization', `Bearer ${TOKEN}`);
    assert.equal(response.status, 200);
    assert.match(response.headers['content-type']!, /^text\/plain/);
    samples = parsePrometheus(response.text);
  });
  after(() => gw.close());

  it('counts requests, errors and latency by route, provider, model and status', () => {
    assert.equal(valueOf(samples, 'gw_requests_total', { ...chatRoute, provider: 'openai', model: 'gpt-4o', status: '200' }), sent.ok - 1);
    assert.equal(valueOf(samples, 'gw_requests_total', { ...chatRoute, model: 'my-private-finetune', status: '200' }), 1);
    assert.equal(valueOf(samples, 'gw_requests_total', { ...chatRoute, status: '429' }), 2);
    assert.equal(valueOf(samples, 'gw_requests_total', { ...chatRoute, status: '446' }), 1);
    assert.equal(valueOf(samples, 'gw_requests_total', chatRoute), 14);
    assert.equal(valueOf(samples, 'gw_request_errors_total', { ...chatRoute, status: '429', type: 'upstream_error' }), 1);
    assert.equal(valueOf(samples, 'gw_request_errors_total', { ...chatRoute, status: '446', type: 'guardrail_error' }), 1);
    assert.equal(valueOf(samples, 'gw_request_duration_seconds_count', chatRoute), 14);
    assert.equal(valueOf(samples, 'gw_request_duration_seconds_bucket', { ...chatRoute, status: '200', model: 'gpt-4o', le: '+Inf' }), sent.ok - 1);
  });

  it("measures gw's own overhead, upstream time and time to first token", () => {
    assert.equal(valueOf(samples, 'gw_overhead_seconds_count', chatRoute), 14);
    assert.ok(valueOf(samples, 'gw_overhead_seconds_sum', chatRoute) > 0);
    // Every request that reached the upstream (not the cache hit, not the two refusals before it).
    assert.equal(valueOf(samples, 'gw_upstream_duration_seconds_count', { provider: 'openai' }), 11);
    assert.equal(valueOf(samples, 'gw_time_to_first_token_seconds_count', { provider: 'openai', model: 'gpt-4o' }), 1);
  });

  it('counts tokens and cost, and unpriced models apart', () => {
    // Ten gpt-4o answers (the cache hit included: it answered its tokens); refusals and errors used none.
    const served = sent.ok - 1;
    assert.equal(valueOf(samples, 'gw_tokens_total', { ...chatRoute, model: 'gpt-4o', kind: 'prompt' }), served * FAKE_USAGE.prompt_tokens);
    assert.equal(valueOf(samples, 'gw_tokens_total', { ...chatRoute, model: 'gpt-4o', kind: 'completion' }), served * FAKE_USAGE.completion_tokens);
    // gpt-4o: 2.5 and 10 USD per million tokens; cache hits are savings, not spend.
    const perRequest = (FAKE_USAGE.prompt_tokens * 2.5 + FAKE_USAGE.completion_tokens * 10) / 1e6;
    assert.ok(Math.abs(valueOf(samples, 'gw_cost_usd_total', { model: 'gpt-4o' }) - (served - 1) * perRequest) < 1e-12);
    assert.equal(valueOf(samples, 'gw_unpriced_requests_total', { model: 'my-private-finetune' }), 1);
    assert.equal(valueOf(samples, 'gw_unpriced_requests_total', { model: 'gpt-4o' }), 0);
  });

  it('counts cache lookups, guardrail verdicts, limit refusals, retries and fallbacks', () => {
    assert.equal(valueOf(samples, 'gw_cache_lookups_total', { ...chatRoute, status: 'MISS' }), 1);
    assert.equal(valueOf(samples, 'gw_cache_lookups_total', { ...chatRoute, status: 'HIT' }), 1);
    assert.equal(valueOf(samples, 'gw_guardrail_verdicts_total', { phase: 'input', verdict: 'pass' }), 1);
    assert.equal(valueOf(samples, 'gw_guardrail_verdicts_total', { phase: 'input', verdict: 'fail' }), 1);
    assert.equal(valueOf(samples, 'gw_limit_refusals_total', { ...chatRoute, code: 'rate_limit_exceeded' }), 1);
    assert.equal(valueOf(samples, 'gw_retries_total', { ...chatRoute, provider: 'openai' }), 1);
    assert.equal(valueOf(samples, 'gw_fallbacks_total', chatRoute), 1);
  });

  it('reports the log queue, dropped rows (none), every HTTP route, and Node event-loop delay and heap', () => {
    assert.ok(samples.some((s) => s.name === 'gw_log_queue_depth'));
    assert.equal(valueOf(samples, 'gw_log_rows_dropped_total'), 0);
    assert.equal(valueOf(samples, 'gw_http_request_duration_seconds_count', { route: 'POST /v1/chat/completions' }), 14);
    assert.equal(valueOf(samples, 'gw_http_request_duration_seconds_count', { route: 'POST /v2/policies/rate-limits', status: '201' }), 1);
    assert.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds'));
    assert.ok(valueOf(samples, 'nodejs_heap_size_used_bytes') > 0);
  });

  it('labels carry no key, user or trace ids', () => {
    const allowed = new Set(['route', 'provider', 'model', 'status', 'type', 'kind', 'phase', 'verdict', 'code', 'le']);
    for (const sample of samples) {
      for (const name of Object.keys(sample.labels)) if (sample.name.startsWith('gw_')) assert.ok(allowed.has(name), `${sample.name} has label ${name}`);
      for (const value of Object.values(sample.labels)) assert.ok(!value.includes(gw.app.adminKey), 'no key in a label');
    }
  });

  it('needs the token: 401 without it or with a wrong one', async () => {
    assert.equal((await gw.app.http.get('/metrics')).status, 401);
    const wrong = await gw.app.http.get('/metrics').set('authorization', 'Bearer metrics-token-wrong-value');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_metrics_token');
  });

  it('the separate metrics listener serves the same registry without a token, and nothing else', async () => {
    const server = createMetricsServer(gw.app.services.metrics!, gw.app.services.logger);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const text = await (await fetch(`${base}/metrics`)).text();
      assert.equal(valueOf(parsePrometheus(text), 'gw_requests_total', chatRoute), 14);
      assert.equal((await fetch(`${base}/v1/chat/completions`)).status, 404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('metrics off', () => {
  it('without GW_METRICS_TOKEN or GW_METRICS_PORT nothing is measured and /metrics is 404', async () => {
    const gw = await startGatewayApp();
    try {
      assert.equal(gw.app.services.metrics, undefined);
      const response = await gw.app.http.get('/metrics');
      assert.equal(response.status, 404);
      assert.equal(response.body.error.code, 'metrics_not_served_here');
    } finally {
      await gw.close();
    }
  });
});

describe('dropped log rows', () => {
  it('gw_log_rows_dropped_total is a counter that grows by the entries dropped between scrapes', async () => {
    const queue = { pending: 0, dropped: 0, backlogAgeMs: 0, spoolBytes: 0 };
    const metrics = new GatewayMetrics(queue);
    const scrape = async () => {
      const text = await metrics.render();
      assert.match(text, /^# TYPE gw_log_rows_dropped_total counter$/m);
      return valueOf(parsePrometheus(text), 'gw_log_rows_dropped_total');
    };
    assert.equal(await scrape(), 0);
    queue.dropped = 3;
    assert.equal(await scrape(), 3);
    assert.equal(await scrape(), 3, 'a scrape without new drops adds nothing');
    queue.dropped = 10;
    assert.equal(await scrape(), 10);
  });
});

describe('bounded labels', () => {
  it('names past the cap are counted as "other", so made-up model names cannot grow the series without bound', () => {
    const label = new BoundedLabel(2);
    assert.equal(label.of('a'), 'a');
    assert.equal(label.of('b'), 'b');
    assert.equal(label.of('c'), 'other');
    assert.equal(label.of('a'), 'a');
    assert.equal(label.of(null), 'none');
  });
});
