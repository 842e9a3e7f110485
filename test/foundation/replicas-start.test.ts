/**
 * A rollout of three replicas started at the same moment on one Postgres, each with its own pools
 * (as separate processes have): on a fresh schema, and on an upgraded one (an older release's
 * migrations and job queue in place, the rest pending). Every replica comes up, and the database
 * holds one of everything. Without the startup lock two of three failed with "deadlock detected"
 * (pg-boss creating its queues from several instances at once). Needs GW_TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import knexFactory from 'knex';
import PgBoss from 'pg-boss';
import { jobsSchemaOf } from '../../server/job-engine.js';
import { migrationSource } from '../../store/migrate.js';
import { migrations } from '../../store/migrations/index.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sharedDb } from '../helpers/test-db.js';

const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const REPLICAS = 3;
/** Each case starts the replicas this many times, on a new schema each time: the race is not certain on one try. */
const ROUNDS = 2;

/** Starts the replicas together; every start must succeed. */
async function startTogether(db: Awaited<ReturnType<typeof sharedDb>>, env: Record<string, string> = {}): Promise<TestApp[]> {
  const started = await Promise.allSettled(Array.from({ length: REPLICAS }, () => startTestApp({ sharedDb: db, env })));
  const apps = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = started.flatMap((result) => (result.status === 'rejected' ? [String((result.reason as Error)?.message ?? result.reason)] : []));
  if (failures.length) {
    for (const app of apps) await app.close();
    assert.fail(`${failures.length} of ${REPLICAS} replicas failed to start: ${failures.join('; ')}`);
  }
  return apps;
}

async function assertServing(apps: TestApp[], key: string): Promise<void> {
  for (const app of apps) {
    assert.equal((await app.http.get('/ready')).status, 200);
    assert.equal((await app.http.get('/v1/api-keys').set('x-gw-api-key', key)).status, 200);
  }
}

async function count(app: TestApp, table: string): Promise<number> {
  return Number((await app.services.db(table).count({ n: '*' }).first())?.n);
}

if (!databaseUrl) test.skip('replicas starting together need GW_TEST_DATABASE_URL (SQLite serves one instance)', () => undefined);
else {
  describe('three replicas started together on Postgres', () => {
    test('an instance with a pool of one connection starts: the startup lock holds a connection of its own', async () => {
      const db = await sharedDb(databaseUrl);
      try {
        const app = await startTestApp({ sharedDb: { ...db, options: { ...db.options, poolSize: 1 } } });
        try {
          await assertServing([app], ADMIN_KEY);
        } finally {
          await app.close();
        }
      } finally {
        await db.drop();
      }
    });

    for (let round = 1; round <= ROUNDS; round++) {
      test(`a fresh database: all come up, one of them makes the organisation and prints the one admin key (round ${round})`, async () => {
        const db = await sharedDb(databaseUrl);
        try {
          // No GW_ADMIN_API_KEY: the key is generated, so exactly one replica may make (and print) it.
          const apps = await startTogether(db, { GW_ADMIN_API_KEY: '' });
          try {
            const generated = apps.map((app) => app.boot.generatedAdminKey).filter((key): key is string => Boolean(key));
            assert.equal(generated.length, 1, 'one replica generated the admin key');
            await assertServing(apps, generated[0]!);
            assert.equal(await count(apps[0]!, 'organisations'), 1);
            assert.equal(await count(apps[0]!, 'api_keys'), 1);
            assert.equal(await count(apps[0]!, 'knex_migrations'), Object.keys(migrations).length);
          } finally {
            for (const app of apps) await app.close();
          }
        } finally {
          await db.drop();
        }
      });

      test(`an upgraded database (migrations pending, the job queue's schema from before): all come up (round ${round})`, async () => {
        const db = await sharedDb(databaseUrl);
        const schema = db.options.schema!;
        try {
          // The older release: the first half of the migrations, and pg-boss with one of today's queues.
          const names = Object.keys(migrations);
          const older = names.slice(0, Math.floor(names.length / 2));
          const knex = knexFactory({ client: 'pg', connection: databaseUrl, searchPath: [schema], pool: { min: 0, max: 1 } });
          try {
            await knex.migrate.latest({ migrationSource: { ...migrationSource, getMigrations: async () => older } });
          } finally {
            await knex.destroy();
          }
          const boss = new PgBoss({ connectionString: databaseUrl, schema: jobsSchemaOf(schema), supervise: false, schedule: false });
          await boss.start();
          await boss.createQueue('batches.run');
          await boss.stop({ graceful: false, wait: true });

          const apps = await startTogether(db);
          try {
            await assertServing(apps, ADMIN_KEY);
            assert.equal(await count(apps[0]!, 'knex_migrations'), names.length);
            assert.equal(await count(apps[0]!, 'organisations'), 1);
            assert.equal(await count(apps[0]!, 'api_keys'), 1);
          } finally {
            for (const app of apps) await app.close();
          }
        } finally {
          await db.drop();
        }
      });
    }
  });
}
