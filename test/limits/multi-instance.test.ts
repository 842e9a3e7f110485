/**
 * The proof that limits are exact across instances: three gw instances (three createApp, each
 * with its own in-memory caches) on one database and one Redis take concurrent requests against
 * a limit of N, and exactly N pass, for a request rate limit, a request budget, a token budget and
 * a cost budget. Without GW_TEST_REDIS_URL the same runs on one instance with memory counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';

const redisUrl = process.env.GW_TEST_REDIS_URL;
const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const setups: Array<{ name: string; instances: number; engine: Engine }> = redisUrl
  ? [{ name: `three instances, ${databaseUrl ? 'postgres' : 'sqlite file'} + redis`, instances: 3, engine: { name: 'shared', databaseUrl, redisUrl } }]
  : [{ name: 'one instance, sqlite + memory (set GW_TEST_REDIS_URL for three instances)', instances: 1, engine: { name: 'sqlite+memory' } }];

const N = 5;
const SENT = 18;
// 44 characters estimate 11 prompt tokens, max_tokens 7: each call reserves exactly what the fake reports (11 + 7).
const PROMPT = 'x'.repeat(44);
const TOKENS_PER_CALL = 18;
const NANO_USD_PER_CALL = 11 * 2500 + 7 * 10_000;

for (const setup of setups) {
  describe(`exact limits under concurrency (${setup.name})`, () => {
    let cluster: TestCluster | undefined;
    let fake: FakeOpenAi;
    let apps: TestApp[] = [];

    before(async () => {
      fake = await startFakeOpenAi();
      cluster = await startTestCluster(setup.instances, { engine: setup.engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, upstreamOriginOverrides: { openai: fake.origin } });
      apps = cluster.apps;
    });
    after(async () => {
      await cluster?.close();
      await fake?.close();
    });

    /** Creates the policy on the first instance and waits until every instance's cache holds it. */
    async function policy(kind: 'usage-limits' | 'rate-limits', name: string, body: Record<string, unknown>): Promise<string> {
      const created = await apps[0]!.http
        .post(`/v2/policies/${kind}`)
        .set({ 'x-gw-api-key': apps[0]!.adminKey })
        .send({ name, conditions: [{ key: 'metadata.test', value: name }], ...body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as string;
      for (const app of apps) {
        const list = kind === 'usage-limits' ? 'usage' : 'rate';
        for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId))[list].some((p) => p.id === id); i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.ok((await app.services.limitPolicies.of(app.boot.organisationId))[list].some((p) => p.id === id), 'every instance sees the policy');
      }
      return id;
    }

    /** SENT concurrent requests spread over the instances; returns the statuses. */
    async function burst(name: string): Promise<number[]> {
      const responses = await Promise.all(
        Array.from({ length: SENT }, (_, i) => {
          const app = apps[i % apps.length]!;
          return app.http
            .post('/v1/chat/completions')
            .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', authorization: 'Bearer sk-up', 'x-gw-metadata': JSON.stringify({ test: name }) })
            .send({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }], max_tokens: 7 });
        }),
      );
      return responses.map((response) => response.status);
    }

    function assertExactlyN(statuses: number[]): void {
      assert.equal(statuses.filter((status) => status === 200).length, N, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, SENT - N, statuses.join(','));
    }

    test(`a rate limit of ${N} requests per day admits exactly ${N}`, async () => {
      await policy('rate-limits', 'rate', { type: 'requests', unit: 'day', value: N });
      const upstreamBefore = fake.requests.length;
      assertExactlyN(await burst('rate'));
      assert.equal(fake.requests.length - upstreamBefore, N, 'refused requests never reached the upstream');
    });

    test(`a request budget of ${N} admits exactly ${N}`, async () => {
      await policy('usage-limits', 'requests', { type: 'requests', credit_limit: N });
      assertExactlyN(await burst('requests'));
    });

    test(`a token budget of ${N} calls' tokens admits exactly ${N}`, async () => {
      const id = await policy('usage-limits', 'tokens', { type: 'tokens', credit_limit: N * TOKENS_PER_CALL });
      assertExactlyN(await burst('tokens'));
      const entities = await apps[apps.length - 1]!.http.get(`/v2/policies/usage-limits/${id}/entities`).set({ 'x-gw-api-key': apps[0]!.adminKey });
      assert.equal(entities.body.data[0].usage, N * TOKENS_PER_CALL);
    });

    test(`a cost budget of ${N} calls' cost admits exactly ${N}`, async () => {
      const id = await policy('usage-limits', 'cost', { type: 'cost', credit_limit: (N * NANO_USD_PER_CALL) / 1e9 });
      assertExactlyN(await burst('cost'));
      const entities = await apps[0]!.http.get(`/v2/policies/usage-limits/${id}/entities`).set({ 'x-gw-api-key': apps[0]!.adminKey });
      assert.equal(entities.body.data[0].usage, (N * NANO_USD_PER_CALL) / 1e9);
    });
  });
}
