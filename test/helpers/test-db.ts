import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import type { DbOptions } from '../../store/db.js';

/**
 * A private database for one test app: an in-memory SQLite, or a fresh Postgres schema that
 * `drop` removes. Suites run in parallel processes without seeing each other's rows.
 */
export async function privateDb(databaseUrl?: string): Promise<{ options: DbOptions; drop: () => Promise<void> }> {
  if (!databaseUrl) return { options: { sqliteFile: ':memory:' }, drop: async () => undefined };
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema "${schema}"`);
  await admin.destroy();
  return {
    options: { databaseUrl, schema, poolSize: 5 },
    drop: async () => {
      const cleanup = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
      await cleanup.raw(`drop schema if exists "${schema}" cascade`);
      // pg-boss's schema beside it (server/job-engine.ts).
      await cleanup.raw(`drop schema if exists "${schema}_jobs" cascade`);
      await cleanup.destroy();
    },
  };
}

/**
 * A database several test apps can share (multi-instance tests): a temporary SQLite file (an
 * in-memory one cannot be shared across connections), or a fresh Postgres schema.
 */
export async function sharedDb(databaseUrl?: string): Promise<{ options: DbOptions; drop: () => Promise<void> }> {
  if (databaseUrl) return privateDb(databaseUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-shared-db-'));
  return { options: { sqliteFile: path.join(dir, 'gw.sqlite') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}
