/**
 * Runs across two gw instances over one database and one Redis: run turns are jobs any instance
 * executes; an instance shut down mid-turn hands its run back and the other finishes it; an
 * instance that dies mid-turn (its lease lapses) leaves a run the other fails cleanly with
 * server_error, so no run stays in_progress forever. Needs GW_TEST_REDIS_URL; runs on a shared
 * SQLite file and, with GW_TEST_DATABASE_URL, on Postgres.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { clusterEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestCluster, type TestApp, type TestCluster } from '../helpers/test-app.js';

const engines = clusterEngines();
if (!engines.length) test.skip('runs across instances need GW_TEST_REDIS_URL', () => undefined);

for (const engine of engines) {
  describe(`assistant runs across instances (${engine.name})`, () => {
    let cluster: TestCluster;
    let fake: FakeOpenAi;
    const clients = new Map<TestApp, OpenAI>();

    before(async () => {
      fake = await startFakeOpenAi();
      cluster = await startTestCluster(2, { engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_JOBS_POLL_MS: '200' } });
      for (const app of cluster.apps) {
        clients.set(app, new OpenAI({ apiKey: 'sk-up', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url } }));
      }
    });
    after(async () => {
      await cluster?.close();
      await fake?.close();
    });

    const client = (app: TestApp) => clients.get(app)!;

    async function inProgressRun(via: TestApp) {
      const asst = await client(via).beta.assistants.create({ model: 'gpt-4o-mini' });
      const sent = fake.requests.length;
      fake.next({ kind: 'hang' });
      const run = await client(via).beta.threads.createAndRun({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'Hello' }] } });
      let row = await via.services.store.assistantRuns.byId(run.id);
      // In progress, and its turn's call has reached the fake and hangs there: otherwise (a loaded
      // machine) the hang would wait for the next call, the other instance's, and hold that one.
      for (let i = 0; i < 500 && (row?.status !== 'in_progress' || fake.requests.length === sent); i++) {
        await new Promise((r) => setTimeout(r, 20));
        row = await via.services.store.assistantRuns.byId(run.id);
      }
      assert.equal(row?.status, 'in_progress');
      assert.equal(fake.requests.length, sent + 1, 'the turn is hanging at the upstream');
      const holder = cluster.apps.find((app) => app.services.assistantRuns.owner === row!.lease_owner)!;
      assert.ok(holder, 'one instance holds the run');
      return { run, holder, other: cluster.apps.find((app) => app !== holder)! };
    }

    async function settled(app: TestApp, threadId: string, runId: string, from: string[]) {
      let run = await client(app).beta.threads.runs.retrieve(runId, { thread_id: threadId });
      for (let i = 0; i < 1000 && from.includes(run.status); i++) {
        await new Promise((r) => setTimeout(r, 20));
        run = await client(app).beta.threads.runs.retrieve(runId, { thread_id: threadId });
      }
      return run;
    }

    test('an instance that dies mid-turn leaves a run the other fails with server_error once the lease lapses', async () => {
      const { run, holder, other } = await inProgressRun(cluster.apps[0]!);
      // The holder's lease lapses as if it had died (its process stopped renewing it).
      await holder.services.db('assistant_runs').where({ id: run.id }).update({ lease_owner: 'dead-instance', lease_until: 1 });
      await other.services.assistantRuns.sweep();
      const failed = await settled(other, run.thread_id, run.id, ['in_progress']);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.last_error?.code, 'server_error');
      // The sealed provider headers are erased with the run's end.
      assert.equal((await other.services.store.assistantRuns.byId(run.id))?.state?.sealedHeaders, null);
    });

    test('an instance shut down mid-turn hands the run back and the other instance completes it', async () => {
      const { run, holder, other } = await inProgressRun(cluster.apps[0]!);
      // Graceful shutdown: the hung turn is cut at the grace deadline, the run goes back to the queue.
      await holder.services.assistantRuns.close(50);
      const done = await settled(other, run.thread_id, run.id, ['queued', 'in_progress']);
      assert.equal(done.status, 'completed', JSON.stringify(done.last_error));
      const [answer] = (await client(other).beta.threads.messages.list(run.thread_id)).data;
      assert.equal((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value, 'You said: Hello');
    });
  });
}
