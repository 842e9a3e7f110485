/**
 * Two gw instances over one database and one Redis: a guardrail, default or exclusion changed
 * through one is what the other's gateway reads next (its in-memory copy is invalidated over
 * Redis pub/sub). Needs GW_TEST_REDIS_URL; SQLite file, and Postgres with GW_TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clusterEngines } from '../helpers/engines.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';

const engines = clusterEngines();

if (!engines.length) test.skip('cross-instance guardrail invalidation needs GW_TEST_REDIS_URL', () => undefined);

/** Pub/sub delivery is asynchronous: polls the other instance's read (bounded), with no timing assertion. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 200 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}

for (const engine of engines) {
  describe(`guardrail changes reach every instance (${engine.name})`, () => {
    let cluster: TestCluster | undefined;
    let a: TestApp;
    let b: TestApp;
    const admin = () => ({ 'x-gw-api-key': a.adminKey });

    before(async () => {
      cluster = await startTestCluster(2, { engine });
      [a, b] = cluster.apps as [TestApp, TestApp];
    });
    after(async () => {
      await cluster?.close();
    });

    test('an update, a default and an exclusion made on A are read by B', async () => {
      const { organisationId, workspaceId } = b.boot;
      const created = await a.http.post('/v1/guardrails').set(admin()).send({ name: 'Shared', checks: [{ id: 'default.pii' }], actions: { deny: true } });
      assert.equal(created.status, 201);
      const first = await b.services.guardrails.guardrail(organisationId, workspaceId, 'shared');
      assert.equal(first?.actions.deny, true);
      assert.deepEqual(await b.services.guardrails.defaultsFor(organisationId, workspaceId, 'input'), []);

      await a.http.put('/v1/guardrails/shared').set(admin()).send({ actions: { deny: false } });
      const updated = await eventually(() => b.services.guardrails.guardrail(organisationId, workspaceId, 'shared'), (g) => g?.actions.deny === false);
      assert.equal(updated?.actions.deny, false);

      await a.http.put('/v1/admin/organisation/defaults').set(admin()).send({ input_guardrails: ['shared'] });
      const defaults = await eventually(() => b.services.guardrails.defaultsFor(organisationId, workspaceId, 'input'), (list) => list.length === 1);
      assert.deepEqual(defaults.map((g) => g.slug), ['shared']);

      await a.http.put('/v1/workspace-exclusions/input-guardrails').set(admin()).send({ workspaces: [workspaceId] });
      const excluded = await eventually(() => b.services.guardrails.defaultsFor(organisationId, workspaceId, 'input'), (list) => list.length === 0);
      assert.deepEqual(excluded, []);
    });
  });
}
