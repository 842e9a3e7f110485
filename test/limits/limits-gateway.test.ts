/**
 * Limits on the gateway path: rate limits and budgets checked before the upstream call, budgets
 * settled with the real usage (streams included), 429 with the limit headers, windows and reset
 * periods on an injected clock, conditions and group_by, entities and per-entity reset.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

// The fake answers every call with 11 prompt + 7 completion tokens; 44 characters estimate 11
// prompt tokens and max_tokens 7 the rest, so reservations equal real usage.
const PROMPT = 'x'.repeat(44);
const GPT_4O_CALL_NANO_USD = 11 * 2500 + 7 * 10_000;

for (const engine of fullEngines()) {
  describe(`limits on the gateway path (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    let clock = Date.parse('2026-05-20T15:30:30Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      fake = await startFakeOpenAi();
      app = await startTestApp({ engine, now: () => clock, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, upstreamOriginOverrides: { openai: fake.origin } });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });

    function chat(test: string, options: { body?: Record<string, unknown>; headers?: Record<string, string>; metadata?: Record<string, string> } = {}) {
      return app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-provider': 'openai', authorization: 'Bearer sk-up', 'x-gw-metadata': JSON.stringify({ test, ...options.metadata }), ...options.headers })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }], max_tokens: 7, ...options.body });
    }

    async function policy(kind: 'usage-limits' | 'rate-limits', test: string, body: Record<string, unknown>) {
      const conditions = [{ key: 'metadata.test', value: test }, ...((body.conditions as unknown[]) ?? [])];
      const res = await app.http.post(`/v2/policies/${kind}`).set(admin()).send({ name: test, ...body, conditions });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string };
    }

    test('a request rate limit refuses the next request with 429, limit headers and no upstream call; the next window admits again', async () => {
      await policy('rate-limits', 'rpm', { type: 'requests', unit: 'minute', value: 2 });
      assert.equal((await chat('rpm')).status, 200);
      assert.equal((await chat('rpm')).status, 200);
      const calls = fake.requests.length;
      const refused = await chat('rpm');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.type, 'rate_limit_error');
      assert.equal(refused.body.error.code, 'rate_limit_exceeded');
      assert.equal(refused.headers['x-ratelimit-limit'], '2');
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      assert.equal(refused.headers['x-ratelimit-reset'], '30');
      assert.equal(refused.headers['retry-after'], '30');
      assert.equal(fake.requests.length, calls, 'refused before the upstream call');
      clock += 30_000;
      assert.equal((await chat('rpm')).status, 200);
    });

    test('a token rate limit counts the real usage of each answer', async () => {
      await policy('rate-limits', 'tpm', { type: 'tokens', unit: 'hour', value: 40 });
      // Without max_tokens, 11 tokens are reserved and 18 are settled: 3 requests reach 40 only through the settlement.
      assert.equal((await chat('tpm', { body: { max_tokens: undefined } })).status, 200);
      assert.equal((await chat('tpm', { body: { max_tokens: undefined } })).status, 200);
      const refused = await chat('tpm', { body: { max_tokens: undefined } });
      assert.equal(refused.status, 429, 'used 36, and 11 more would pass 40');
      assert.equal(refused.headers['x-ratelimit-remaining'], '4');
    });

    test('conditions with excludes, and group_by giving each entity its own counter', async () => {
      await policy('rate-limits', 'grouped', { type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.user', value: '*', excludes: 'vip' }], group_by: [{ key: 'metadata.user' }] });
      assert.equal((await chat('grouped', { metadata: { user: 'ann' } })).status, 200);
      assert.equal((await chat('grouped', { metadata: { user: 'bob' } })).status, 200);
      assert.equal((await chat('grouped', { metadata: { user: 'ann' } })).status, 429);
      assert.equal((await chat('grouped', { metadata: { user: 'vip' } })).status, 200);
      assert.equal((await chat('grouped', { metadata: { user: 'vip' } })).status, 200, 'excluded from the policy');
      assert.equal((await chat('grouped')).status, 200, 'no user: the condition value * does not hold');
      assert.equal((await chat('grouped')).status, 200);
    });

    test('a condition naming the workspace by its slug holds for that workspace (stored as its id)', async () => {
      const workspace = (await app.services.store.workspaces.get(app.boot.organisationId, app.boot.workspaceId))!;
      const created = await policy('rate-limits', 'workspace-slug', { type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'workspace_id', value: workspace.slug }] });
      assert.equal((await chat('workspace-slug')).status, 200);
      assert.equal((await chat('workspace-slug')).status, 429);
      const stored = await app.http.get(`/v2/policies/rate-limits/${created.id}`).set(admin());
      assert.deepEqual(stored.body.conditions.at(-1), { key: 'workspace_id', value: workspace.id });
    });

    test('an empty excludes excludes nothing', async () => {
      await policy('rate-limits', 'empty-excludes', { type: 'requests', unit: 'day', value: 1, conditions: [{ key: 'metadata.team', value: '*', excludes: '' }] });
      assert.equal((await chat('empty-excludes', { metadata: { team: 'core' } })).status, 200);
      assert.equal((await chat('empty-excludes', { metadata: { team: 'core' } })).status, 429);
    });

    test('a requests budget: 429 usage_limit_exceeded once spent, entities with usage, per-entity reset', async () => {
      const created = await policy('usage-limits', 'budget', { type: 'requests', credit_limit: 2, alert_threshold: 2, group_by: [{ key: 'metadata.user' }] });
      assert.equal((await chat('budget', { metadata: { user: 'ann' } })).status, 200);
      assert.equal((await chat('budget', { metadata: { user: 'ann' } })).status, 200);
      assert.equal((await chat('budget', { metadata: { user: 'bob' } })).status, 200);
      const refused = await chat('budget', { metadata: { user: 'ann' } });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'usage_limit_exceeded');
      assert.equal(refused.headers['x-ratelimit-limit'], '2');
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      assert.equal(refused.headers['x-ratelimit-reset'], undefined, 'a budget without a reset rule never resets');

      const entities = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities`).set(admin());
      assert.equal(entities.status, 200, JSON.stringify(entities.body));
      const byUser = Object.fromEntries(entities.body.data.map((e: { group: { 'metadata.user': string } }) => [e.group['metadata.user'], e]));
      assert.equal(byUser.ann.usage, 2);
      assert.equal(byUser.ann.alert_threshold_reached, true);
      assert.equal(byUser.bob.usage, 1);
      assert.equal(byUser.bob.remaining, 1);
      assert.equal(byUser.bob.alert_threshold_reached, false);

      // Pages of one, in entity_id order, until the cursor runs out.
      const first = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities?limit=1`).set(admin());
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.data.length, 1);
      assert.equal(first.body.has_more, true);
      const second = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities?limit=1&cursor=${first.body.next_cursor}`).set(admin());
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(second.body.has_more, false);
      assert.equal(second.body.next_cursor, null);
      assert.deepEqual(
        [first.body.data[0].entity_id, second.body.data[0].entity_id],
        entities.body.data.map((e: { entity_id: string }) => e.entity_id).sort(),
      );
      const badCursor = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities?cursor=not-a-cursor`).set(admin());
      assert.equal(badCursor.status, 400);
      assert.equal(badCursor.body.error.param, 'cursor');

      const reset = await app.http.post(`/v2/policies/usage-limits/${created.id}/entities/${byUser.ann.entity_id}/reset`).set(admin());
      assert.equal(reset.status, 200);
      assert.equal(reset.body.usage, 0);
      assert.equal((await chat('budget', { metadata: { user: 'ann' } })).status, 200);
      assert.equal((await chat('budget', { metadata: { user: 'bob' } })).status, 200);
      assert.equal((await chat('budget', { metadata: { user: 'bob' } })).status, 429, 'the reset touched ann only');
    });

    test('a token budget settles streams with the real usage once they end', async () => {
      const created = await policy('usage-limits', 'stream-tokens', { type: 'tokens', credit_limit: 1000 });
      const stream = await chat('stream-tokens', { body: { stream: true, max_tokens: undefined } });
      assert.equal(stream.status, 200);
      assert.match(stream.text, /data: \[DONE\]/);
      const entities = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities`).set(admin());
      assert.equal(entities.body.data[0].usage, 18, 'reserved 11 (prompt estimate), settled at 18');
    });

    test('a cost budget prices with the bundled table and the integration multiplier', async () => {
      const integration = await app.http
        .post('/v1/integrations')
        .set(admin())
        .send({ name: 'priced', ai_provider_id: 'openai', key: 'sk-integration-0000', pricing_adjustments: { multiplier: 2 }, workspace_access: { all_workspaces: true, workspace_ids: [] } });
      assert.equal(integration.status, 201, JSON.stringify(integration.body));
      const provider = await app.http.post('/v1/providers').set(admin()).send({ name: 'priced-openai', integration_id: integration.body.id });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));
      const created = await policy('usage-limits', 'cost', { type: 'cost', credit_limit: (3 * 2 * GPT_4O_CALL_NANO_USD) / 1e9 });
      const viaSaved = { 'x-gw-provider': '@priced-openai', authorization: '' };
      for (let i = 0; i < 3; i++) assert.equal((await chat('cost', { headers: viaSaved })).status, 200);
      const refused = await chat('cost', { headers: viaSaved });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      const entities = await app.http.get(`/v2/policies/usage-limits/${created.id}/entities`).set(admin());
      assert.equal(entities.body.data[0].usage, (3 * 2 * GPT_4O_CALL_NANO_USD) / 1e9);
    });

    test('a periodic budget starts over at the next UTC-midnight reset', async () => {
      const created = await policy('usage-limits', 'daily', { type: 'requests', credit_limit: 1, periodic_reset_days: 1 });
      const before = await app.http.get(`/v2/policies/usage-limits/${created.id}`).set(admin());
      assert.equal(before.body.last_reset_at, null);
      const nextReset = Date.parse(before.body.next_usage_reset_at as string);
      assert.equal(nextReset % 86_400_000, 0);
      assert.equal((await chat('daily')).status, 200);
      const refused = await chat('daily');
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['x-ratelimit-reset'], String(Math.ceil((nextReset - clock) / 1000)));
      clock = nextReset;
      assert.equal((await chat('daily')).status, 200);
      const afterReset = await app.http.get(`/v2/policies/usage-limits/${created.id}`).set(admin());
      assert.equal(afterReset.body.last_reset_at, new Date(nextReset).toISOString());
      assert.equal(afterReset.body.next_usage_reset_at, new Date(nextReset + 86_400_000).toISOString());
    });

    test('a deleted policy stops limiting at once', async () => {
      const created = await policy('rate-limits', 'deleted', { type: 'requests', unit: 'day', value: 1 });
      assert.equal((await chat('deleted')).status, 200);
      assert.equal((await chat('deleted')).status, 429);
      await app.http.delete(`/v2/policies/rate-limits/${created.id}`).set(admin());
      assert.equal((await chat('deleted')).status, 200);
    });
  });
}
