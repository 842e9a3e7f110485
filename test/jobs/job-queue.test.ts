import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { JobPayload, JobQueue, JobQueueTuning } from '../../jobs/job-queue.js';
import { PgBossJobQueue } from '../../jobs/pg-boss-job-queue.js';
import { StoreJobQueue } from '../../jobs/store-job-queue.js';
import { createJobQueue, jobsSchemaOf } from '../../server/job-engine.js';
import { loadConfig } from '../../core/config.js';
import knexFactory from 'knex';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { JobsRepository } from '../../store/repositories/jobs.js';
import { privateDb } from '../helpers/test-db.js';

const quiet = { warn: () => undefined };
const TUNING: JobQueueTuning = { leaseMs: 2000, pollMs: 50 };

/** One engine under test: `open` makes another instance over the same backing store (a restart). */
interface EngineUnderTest {
  name: string;
  setup(): Promise<{ open: () => JobQueue; drop: () => Promise<void> }>;
}

const engines: EngineUnderTest[] = [
  {
    name: 'store (SQLite)',
    async setup() {
      const dir = mkdtempSync(path.join(tmpdir(), 'gw-jobs-'));
      const dbs: Array<ReturnType<typeof createDb>> = [];
      const first = createDb({ sqliteFile: path.join(dir, 'gw.sqlite') });
      await migrateToLatest(first);
      await first.destroy();
      return {
        open: () => {
          const db = createDb({ sqliteFile: path.join(dir, 'gw.sqlite') });
          dbs.push(db);
          return new StoreJobQueue(new JobsRepository(db), TUNING, quiet);
        },
        drop: async () => {
          await Promise.all(dbs.map((db) => db.destroy()));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];
const databaseUrl = process.env.GW_TEST_DATABASE_URL;
if (databaseUrl) {
  engines.push({
    name: 'pg-boss (Postgres)',
    async setup() {
      const db = await privateDb(databaseUrl);
      return {
        open: () => new PgBossJobQueue({ connectionString: databaseUrl, schema: jobsSchemaOf(db.options.schema) }, TUNING, quiet),
        drop: db.drop,
      };
    },
  });
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves once `count` calls were seen; the list keeps every payload. */
function collector(count: number): { seen: JobPayload[]; done: Promise<void>; handler: (payload: JobPayload) => Promise<void> } {
  const seen: JobPayload[] = [];
  const finished = deferred();
  return {
    seen,
    done: finished.promise,
    handler: async (payload) => {
      seen.push(payload);
      if (seen.length >= count) finished.resolve();
    },
  };
}

for (const engine of engines) {
  describe(`job queue on ${engine.name}`, () => {
    const opened: JobQueue[] = [];
    let backing: Awaited<ReturnType<EngineUnderTest['setup']>> | undefined;
    const open = async (): Promise<JobQueue> => {
      backing ??= await engine.setup();
      const queue = backing.open();
      opened.push(queue);
      return queue;
    };
    after(async () => {
      for (const queue of opened) await queue.close(100);
      await backing?.drop();
    });

    test('runs an enqueued job with its payload, on a handler registered after start', async () => {
      const queue = await open();
      await queue.start();
      const jobs = collector(1);
      queue.register('t.basic', jobs.handler);
      await queue.enqueue('t.basic', { hello: 'world', n: 1 });
      await jobs.done;
      assert.deepEqual(jobs.seen, [{ hello: 'world', n: 1 }]);
    });

    test('retries a job whose handler threw, counting the attempts', async () => {
      const queue = await open();
      const attempts: number[] = [];
      const succeeded = deferred();
      queue.register('t.retry', async (_payload, job) => {
        attempts.push(job.attempt);
        if (job.attempt < 2) throw new Error('first run fails');
        succeeded.resolve();
      });
      await queue.start();
      await queue.enqueue('t.retry', {});
      await succeeded.promise;
      assert.deepEqual(attempts, [1, 2]);
    });

    test('a singleton key keeps one job waiting', async () => {
      const queue = await open();
      // Nothing handles the name yet, so all three sends land while the first still waits.
      for (let i = 0; i < 3; i += 1) await queue.enqueue('t.single', { i }, { singletonKey: 'batch-1' });
      await queue.enqueue('t.single', { other: true }, { singletonKey: 'batch-2' });
      const jobs = collector(2);
      queue.register('t.single', jobs.handler);
      await queue.start();
      await jobs.done;
      // A third run would have shown up by the time a marker job sent after them has run.
      const marker = collector(1);
      queue.register('t.single-marker', marker.handler);
      await queue.enqueue('t.single-marker', {});
      await marker.done;
      assert.equal(jobs.seen.length, 2);
      assert.deepEqual(jobs.seen.filter((p) => 'i' in p).length, 1);
    });

    test('a delayed job runs no earlier than its delay', async () => {
      const queue = await open();
      await queue.start();
      let ranAt = 0;
      const ran = deferred();
      queue.register('t.delay', async () => {
        ranAt = Date.now();
        ran.resolve();
      });
      const sentAt = Date.now();
      await queue.enqueue('t.delay', {}, { delayMs: 1200 });
      await ran.promise;
      assert.ok(ranAt - sentAt >= 1000, `ran ${ranAt - sentAt} ms after the send`);
    });

    test('runs at most `concurrency` jobs of a name at once', async () => {
      const queue = await open();
      let running = 0;
      let peak = 0;
      let finished = 0;
      const all = deferred();
      queue.register(
        't.bounded',
        async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 150));
          running -= 1;
          finished += 1;
          if (finished === 6) all.resolve();
        },
        { concurrency: 2 },
      );
      for (let i = 0; i < 6; i += 1) await queue.enqueue('t.bounded', { i });
      await queue.start();
      await all.promise;
      assert.ok(peak <= 2, `peak ${peak}`);
    });

    test('an instance that stopped working a name takes none of its jobs; the other instance runs them all', async () => {
      const [leaving, staying] = [await open(), await open()];
      const takenByLeaving: JobPayload[] = [];
      leaving.register('t.leave', async (payload) => void takenByLeaving.push(payload));
      const jobs = collector(6);
      staying.register('t.leave', jobs.handler);
      await leaving.start();
      await staying.start();
      await leaving.stopWorking('t.leave');
      for (let n = 0; n < 6; n++) await leaving.enqueue('t.leave', { n }, n % 2 ? { singletonKey: `k${n}` } : {});
      await jobs.done;
      assert.deepEqual(takenByLeaving, []);
      assert.deepEqual(jobs.seen.map((payload) => payload.n).sort(), [0, 1, 2, 3, 4, 5]);
    });

    test('a job waiting when its instance stops runs on the next instance (restart)', async () => {
      const first = await open();
      await first.start();
      await first.enqueue('t.restart', { survived: true });
      await first.close(100);
      const second = await open();
      const jobs = collector(1);
      second.register('t.restart', jobs.handler);
      await second.start();
      await jobs.done;
      assert.deepEqual(jobs.seen, [{ survived: true }]);
    });

    test('a job running longer than its lease is not taken over while its instance beats', async () => {
      const [one, other] = [await open(), await open()];
      const runs: Array<{ attempt: number }> = [];
      const finished = deferred();
      const handler = async (_payload: JobPayload, job: { attempt: number }) => {
        runs.push({ attempt: job.attempt });
        // Three leases long: a lease without a heartbeat would have lapsed, and the job run again, twice over.
        await new Promise((resolve) => setTimeout(resolve, 3 * TUNING.leaseMs));
        finished.resolve();
      };
      one.register('t.long', handler);
      other.register('t.long', handler);
      await one.start();
      await other.start();
      await one.enqueue('t.long', {});
      await finished.promise;
      // A run taken over meanwhile would have started by now: a marker job sent after it has run.
      const marker = collector(1);
      other.register('t.long-marker', marker.handler);
      await other.enqueue('t.long-marker', {});
      await marker.done;
      assert.deepEqual(runs, [{ attempt: 1 }]);
    });

    test('a job running when its instance stops is run again by the next instance', async () => {
      const first = await open();
      const started = deferred();
      // The first instance never finishes the job: it stops (as if killed) with the job in hand.
      first.register('t.interrupted', async () => {
        started.resolve();
        await new Promise(() => undefined);
      });
      await first.start();
      await first.enqueue('t.interrupted', { step: 'x' });
      await started.promise;
      await first.close(100);
      const second = await open();
      const jobs = collector(1);
      second.register('t.interrupted', jobs.handler);
      await second.start();
      await jobs.done;
      assert.deepEqual(jobs.seen, [{ step: 'x' }]);
    });
  });
}

if (databaseUrl) {
  test('pg-boss keeps its queue beside the schema gw works in: gw_jobs beside public, <schema>_jobs beside a search_path schema', async () => {
    const config = loadConfig({ GW_DATABASE_URL: databaseUrl, GW_JOBS_ENGINE: 'pg-boss' });
    const own = await privateDb(databaseUrl);
    const viaSearchPath = new URL(databaseUrl);
    viaSearchPath.searchParams.set('options', `-c search_path=${own.options.schema}`);
    const plain = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
    const scoped = knexFactory({ client: 'pg', connection: viaSearchPath.toString(), pool: { min: 0, max: 1 } });
    try {
      const inPublic = (await createJobQueue(config, plain, { databaseUrl }, quiet as never)) as PgBossJobQueue;
      const inOwn = (await createJobQueue(config, scoped, { databaseUrl: viaSearchPath.toString() }, quiet as never)) as PgBossJobQueue;
      const given = (await createJobQueue(config, plain, { databaseUrl, schema: 'given' }, quiet as never)) as PgBossJobQueue;
      assert.deepEqual([inPublic.schema, inOwn.schema, given.schema], ['gw_jobs', `${own.options.schema}_jobs`, 'given_jobs']);
    } finally {
      await plain.destroy();
      await scoped.destroy();
      await own.drop();
    }
  });
}
