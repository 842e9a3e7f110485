/**
 * `agents` rate-limit policies on A2A calls, exact across instances: three gw instances on one
 * database and one Redis take concurrent `message/send` calls (A2A 1.0 SDK client on each) against
 * a limit of N per skill, and exactly N pass for each skill; another agent is not counted. Also: an
 * integration registered on one instance is served by the others at once (the directory cache is
 * emptied across instances). Without GW_TEST_REDIS_URL the same runs on one instance with memory
 * counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { clockFromMinuteStart } from '../helpers/minute-clock.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';
import { PUBLIC_URL, registerAgent, testClient, workspaceKey } from './a2a-fixtures.js';

const redisUrl = process.env.GW_TEST_REDIS_URL;
const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const setups: Array<{ name: string; instances: number; engine: Engine }> = redisUrl
  ? [{ name: `three instances, ${databaseUrl ? 'postgres' : 'sqlite file'} + redis`, instances: 3, engine: { name: 'shared', databaseUrl, redisUrl } }]
  : [{ name: 'one instance, sqlite + memory (set GW_TEST_REDIS_URL for three instances)', instances: 1, engine: { name: 'sqlite+memory' } }];

const N = 4;
const SENT = 12;

for (const setup of setups) {
  describe(`agents rate limits (${setup.name})`, () => {
    let cluster: TestCluster | undefined;
    let agent: FakeA2aAgent;
    let apps: TestApp[] = [];
    let key: string;

    before(async () => {
      agent = await startFakeA2aAgent('1.0');
      cluster = await startTestCluster(setup.instances, { engine: setup.engine, now: clockFromMinuteStart(), env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
      apps = cluster.apps;
      // Every instance reads the integration once before it exists, so a stale "absent" would show.
      for (const app of apps) assert.equal((await app.http.get('/a2a/limited/.well-known/agent-card.json').set({ 'x-gw-api-key': app.adminKey })).status, 404);
      await registerAgent(apps[0]!, agent, 'limited');
      await registerAgent(apps[0]!, agent, 'unlimited');
      key = await workspaceKey(apps[0]!);
    });
    after(async () => {
      await cluster?.close();
      await agent.close();
    });

    test(`${N} calls per hour per skill of one agent: exactly ${N} of ${SENT} pass for each skill, over every instance`, async () => {
      // An hour window: windows are fixed, so a minute one let calls straddling its boundary through.
      const created = await apps[0]!.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': apps[0]!.adminKey })
        .send({ name: 'per skill', target: 'agents', type: 'requests', unit: 'hour', value: N, conditions: [{ key: 'metadata.a2a_agent', value: 'limited' }], group_by: [{ key: 'metadata.a2a_skill' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const app of apps) {
        for (let i = 0; i < 500 && !(await app.services.limitPolicies.of(app.boot.organisationId)).rate.some((policy) => policy.id === created.body.id); i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      const clients = await Promise.all(apps.map((app) => testClient('1.0', app, 'limited', { 'x-gw-api-key': key })));
      for (const skill of ['echo', 'secret']) {
        const outcomes = await Promise.allSettled(Array.from({ length: SENT }, (_, i) => clients[i % clients.length]!.send(`call ${i}`, { skill })));
        const passed = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
        const limited = outcomes.filter((outcome) => outcome.status === 'rejected' && /-32029|rate limit/i.test(String(outcome.reason))).length;
        assert.equal(passed, N, `${skill}: ${outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'ok')).join(' | ')}`);
        assert.equal(limited, SENT - N);
      }
      const other = await testClient('0.3', apps.at(-1)!, 'unlimited', { 'x-gw-api-key': key });
      for (let i = 0; i < N + 1; i++) assert.equal((await other.send(`free ${i}`, { skill: 'echo' })).state, 'completed');
    });
  });
}
