/**
 * A gw process killed (SIGKILL) in the middle of two runs, on Postgres + Redis: a second instance
 * running beside it fails both cleanly (test/helpers/run-kill.ts). Both share a database of their
 * own (pg-boss's schema in it included). Needs GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import knexFactory from 'knex';
import { describeRunKill } from '../helpers/run-kill.js';

const databaseUrl = process.env.GW_TEST_DATABASE_URL;
const redisUrl = process.env.GW_TEST_REDIS_URL;
if (!databaseUrl || !redisUrl) test.skip('a run killed on Postgres + Redis needs GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL', () => undefined);
else {
  const database = `gw_runkill_${randomBytes(4).toString('hex')}`;
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  const admin = () => knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  describeRunKill({
    name: 'postgres + redis (two instances)',
    beside: true,
    env: { GW_DATABASE_URL: url.toString(), GW_REDIS_URL: redisUrl, GW_REDIS_PREFIX: `gwrunkill:${randomBytes(4).toString('hex')}:` },
    setup: async () => {
      const db = admin();
      await db.raw(`create database "${database}"`);
      await db.destroy();
    },
    db: () => knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 1 } }),
    cleanup: async () => {
      const db = admin();
      await db.raw(`drop database if exists "${database}" with (force)`);
      await db.destroy();
    },
  });
}
