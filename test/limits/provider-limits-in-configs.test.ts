/**
 * Limits set on a saved provider also hold when a config's target uses it (`virtual_key` or
 * `provider: "@slug"`, saved or inline config): checked per attempt before the upstream call, a
 * refusal moves a fallback on, failed attempts give their hold back, and the serving attempt
 * settles with its real usage priced with the provider's integration multiplier.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { FAKE_USAGE, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

// gpt-4o on openai costs 2.5 / 10 USD per million tokens: 2500 / 10000 nano-USD per token.
const GPT_4O_CALL_NANO_USD = FAKE_USAGE.prompt_tokens * 2500 + FAKE_USAGE.completion_tokens * 10_000;

for (const engine of fullEngines()) {
  describe(`saved provider limits inside configs (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    const clock = Date.parse('2026-05-20T15:30:30Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, now: () => clock, upstreamOriginOverrides: { openai: fake.origin } });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });

    async function savedProvider(name: string, extra: Record<string, unknown>) {
      const created = await app.http.post('/v1/providers').set(admin()).send({ name, ai_provider_id: 'openai', key: 'sk-saved-00000000', ...extra });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }

    function chat(config: unknown, body: Record<string, unknown> = {}) {
      return app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-config': typeof config === 'string' ? config : JSON.stringify(config) })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(44) }], ...body });
    }

    test('a request rate limit of N on a config target: N pass, then 429 with the limit headers and no upstream call', async () => {
      await savedProvider('rpm-two', { rate_limits: [{ type: 'requests', unit: 'minute', value: 2 }] });
      const saved = await app.http.post('/v1/configs').set(admin()).send({ name: 'Uses rpm-two', slug: 'uses-rpm-two', config: { virtual_key: 'rpm-two' } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const inline = { strategy: { mode: 'single' }, targets: [{ provider: '@rpm-two' }] };
      assert.equal((await chat('uses-rpm-two')).status, 200);
      assert.equal((await chat(inline)).status, 200, 'an inline config naming @rpm-two counts against the same limit');
      const calls = fake.requests.length;
      for (const config of ['uses-rpm-two', inline]) {
        const refused = await chat(config);
        assert.equal(refused.status, 429, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, 'rate_limit_exceeded');
        assert.equal(refused.body.error.type, 'rate_limit_error');
        assert.equal(refused.headers['x-ratelimit-limit'], '2');
        assert.equal(refused.headers['x-ratelimit-remaining'], '0');
        assert.equal(refused.headers['x-ratelimit-reset'], '30');
        assert.equal(refused.headers['retry-after'], '30');
      }
      assert.equal(fake.requests.length, calls, 'refused before any upstream call');
    });

    test('with a fallback, the next target serves once the first provider has reached its limit', async () => {
      await savedProvider('first-choice', { rate_limits: [{ type: 'requests', unit: 'day', value: 1 }] });
      await savedProvider('second-choice', {});
      // on_status_codes leaves 429 out: a provider-limit refusal moves on regardless.
      const config = { strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [{ virtual_key: 'first-choice' }, { provider: '@second-choice' }] };
      const first = await chat(config);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.headers['x-gw-last-used-option-index'], '0');
      const calls = fake.requests.length;
      const second = await chat(config);
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(second.headers['x-gw-last-used-option-index'], '1');
      assert.equal(fake.requests.length, calls + 1, 'the limited target made no upstream call');
    });

    test('retries of the same target settle each failed attempt instead of holding its reservation', async () => {
      // Each attempt reserves 11 + 7 tokens; three held at once (54) would pass the budget of 40.
      await savedProvider('flaky', { usage_limits: { type: 'tokens', credit_limit: 40 } });
      fake.next({ kind: 'error', status: 500 }, { kind: 'error', status: 500 }, { kind: 'error', status: 500 });
      const calls = fake.requests.length;
      const failed = await chat({ virtual_key: 'flaky', retry: { attempts: 2, on_status_codes: [500] } }, { max_tokens: 7 });
      assert.equal(failed.status, 500, 'the upstream error, not a limit refusal');
      assert.equal(fake.requests.length, calls + 3, 'every retry reached the upstream');
      const served = await chat({ virtual_key: 'flaky' }, { max_tokens: 7 });
      assert.equal(served.status, 200, 'failed attempts used no tokens of the budget');
    });

    test('a cache hit does not count against the provider it would have called', async () => {
      await savedProvider('cached-once', { rate_limits: [{ type: 'requests', unit: 'day', value: 1 }] });
      const config = { virtual_key: 'cached-once', cache: { mode: 'simple', max_age: 60 } };
      const miss = await chat(config, { messages: [{ role: 'user', content: 'cached question' }] });
      assert.equal(miss.status, 200);
      assert.equal(miss.headers['x-gw-cache-status'], 'MISS');
      const hit = await chat(config, { messages: [{ role: 'user', content: 'cached question' }] });
      assert.equal(hit.status, 200);
      assert.equal(hit.headers['x-gw-cache-status'], 'HIT');
      const fresh = await chat(config, { messages: [{ role: 'user', content: 'another question' }] });
      assert.equal(fresh.status, 429, 'the one upstream call used the limit; the hit did not');
    });

    test('a provider cost budget settles each answer, streams included, at its real cost times the integration multiplier', async () => {
      const integration = await app.http
        .post('/v1/integrations')
        .set(admin())
        .send({ name: 'doubled', ai_provider_id: 'openai', key: 'sk-integration-0000', pricing_adjustments: { multiplier: 2 }, workspace_access: { all_workspaces: true, workspace_ids: [] } });
      assert.equal(integration.status, 201, JSON.stringify(integration.body));
      // Room for two calls at the doubled price. Without max_tokens a call reserves only its
      // prompt, so only a settlement at 2x the full cost makes the third call over budget.
      await savedProvider('doubled-openai', { integration_id: integration.body.id, ai_provider_id: undefined, key: undefined, usage_limits: { type: 'cost', credit_limit: (2 * 2 * GPT_4O_CALL_NANO_USD) / 1e9 } });
      const config = { strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'doubled-openai' }] };
      assert.equal((await chat(config)).status, 200);
      const stream = await chat(config, { stream: true });
      assert.equal(stream.status, 200);
      assert.match(stream.text, /data: \[DONE\]/);
      const refused = await chat(config);
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'usage_limit_exceeded');
      assert.equal(refused.headers['x-ratelimit-limit'], String((2 * 2 * GPT_4O_CALL_NANO_USD) / 1e9));
      assert.equal(refused.headers['x-ratelimit-remaining'], '0', 'two calls settled at exactly 2 x their cost');
    });
  });
}
