/** GW_WORKERS=2 on Postgres + Redis: workers share state as separate instances do (test/workers/gw-workers.ts). Needs GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL. */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import knexFactory from 'knex';
import { describeWorkers } from './gw-workers.js';

const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const redisUrl = process.env.GW_TEST_REDIS_URL;
if (!databaseUrl || !redisUrl) test.skip('GW_WORKERS on Postgres + Redis needs GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL', () => undefined);
else {
  const database = `gw_workers_${randomBytes(4).toString('hex')}`;
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  const admin = () => knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  describeWorkers({
    name: 'postgres + redis',
    env: { GW_DATABASE_URL: url.toString(), GW_REDIS_URL: redisUrl, GW_REDIS_PREFIX: `gwworkers:${randomBytes(4).toString('hex')}:` },
    setup: async () => {
      const db = admin();
      await db.raw(`create database "${database}"`);
      await db.destroy();
    },
    logTraceIds: async () => {
      const db = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 1 } });
      try {
        return ((await db('request_logs').select('trace_id')) as Array<{ trace_id: string }>).map((row) => row.trace_id);
      } finally {
        await db.destroy();
      }
    },
    cleanup: async () => {
      const db = admin();
      await db.raw(`drop database if exists "${database}" with (force)`);
      await db.destroy();
    },
  });
}
