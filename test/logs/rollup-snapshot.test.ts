/**
 * One analytics call reads the rollups and the raw rows in several statements. A fold (the rollup
 * folder counting imports or older rows, on this instance or another) committing between two of
 * them moves rows from "raw, not rolled up" to "in the rollups": the call must see one side of it,
 * not both or neither. Here another instance's fold is made to commit right after the first read
 * of each call, on SQLite (a shared file in WAL mode) and on Postgres.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Knex } from 'knex';
import type { RequestLogEntry } from '../../core/request-log.js';
import { createDb } from '../../store/db.js';
import { LogAnalytics } from '../../store/log-analytics.js';
import { migrateToLatest } from '../../store/migrate.js';
import { RequestLogsRepository } from '../../store/repositories/request-logs.js';
import { backfillRollups, resetRollups, rowsToBackfill } from '../../store/rollups/backfill.js';
import { storeEngines } from '../helpers/engines.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { sharedDb } from '../helpers/test-db.js';
import { logEntry } from './log-fixtures.js';

const HOUR = 3_600_000;
/** Two days from an odd instant: whole rollup buckets in the middle, raw edges at both ends. */
const T0 = Date.parse('2026-10-30T21:17:43.123Z');
const SPAN = 48 * HOUR;

/** A read of the analytics tables (not BEGIN, SET or COMMIT). */
const ANALYTICS_READ = /^\s*select\b[\s\S]*\b(request_logs|analytics_rollups)\b/i;

type Send = (this: { config: unknown }, connection: unknown, query: string | { sql: string }) => Promise<unknown>;

/**
 * Makes `fold` run and commit right after the first analytics read statement `db` sends once armed,
 * before any later one goes out (those wait for it). A transaction sends its statements through a
 * client made from the dialect's prototype (knex's makeTxClient), so the prototype's `query` is
 * wrapped, for this instance's statements only (its config), until `restore`.
 */
function foldAfterFirstRead(db: Knex, fold: () => Promise<unknown>): { arm: () => void; folds: () => number; restore: () => void } {
  const prototype = Object.getPrototypeOf(db.client) as { query: Send };
  const own = Object.hasOwn(prototype, 'query');
  const send = prototype.query;
  const config = db.client.config;
  let armed = false;
  let folds = 0;
  let first: Promise<unknown> | undefined;
  prototype.query = function (connection, query) {
    if (this.config !== config || !armed || !ANALYTICS_READ.test(typeof query === 'string' ? query : query.sql)) return send.call(this, connection, query);
    if (first) return first.then(() => send.call(this, connection, query));
    const read = send.call(this, connection, query);
    first = read.then(async () => {
      await fold();
      folds++;
    });
    return first.then(() => read);
  };
  return {
    arm: () => {
      armed = true;
      first = undefined;
    },
    folds: () => folds,
    restore: () => {
      if (own) prototype.query = send;
      else delete (prototype as Partial<typeof prototype>).query;
    },
  };
}

/** One fold batch: half the rows waiting, moved into the rollups in one committed transaction. */
async function foldOneBatch(db: Knex, batchSize: number): Promise<void> {
  const stop = new AbortController();
  const { done } = await backfillRollups(db, { batchSize, signal: stop.signal, onProgress: () => stop.abort() });
  assert.equal(done, batchSize, 'the fold moved a batch');
}

function byHour(entries: RequestLogEntry[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const e of entries) {
    const hour = Math.floor(e.created_at / HOUR) * HOUR;
    counts.set(hour, (counts.get(hour) ?? 0) + 1);
  }
  return counts;
}

for (const engine of storeEngines()) {
  describe(`analytics calls read one snapshot while a fold commits (${engine.name})`, () => {
    let drop: () => Promise<void>;
    // Two instances on one database: one answers analytics, the other folds.
    let reader: Knex;
    let folder: Knex;
    let hook: ReturnType<typeof foldAfterFirstRead>;
    let analytics: LogAnalytics;
    const r = seededRandom(91);
    const org = randomUUID();
    const models = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5'];
    const entries = Array.from({ length: 400 }, () =>
      logEntry({ organisation_id: org, workspace_id: 'w', model: models[Math.floor(r() * models.length)]!, created_at: T0 + Math.floor(r() * SPAN), total_tokens: 1 + Math.floor(r() * 900) }),
    );
    const range = { organisation_id: org, start: T0 + 7, end: T0 + SPAN - 11 };
    const selected = entries.filter((e) => e.created_at >= range.start && e.created_at < range.end);
    const tokens = (list: RequestLogEntry[]) => list.reduce((n, e) => n + e.total_tokens, 0);

    before(async () => {
      const shared = await sharedDb(engine.databaseUrl);
      drop = shared.drop;
      reader = createDb(shared.options);
      folder = createDb(shared.options);
      await migrateToLatest(reader);
      await new RequestLogsRepository(folder).insertMany(entries);
      analytics = new LogAnalytics(reader);
      hook = foldAfterFirstRead(reader, () => foldOneBatch(folder, entries.length / 2));
    });
    after(async () => {
      hook?.restore();
      await reader?.destroy();
      await folder?.destroy();
      await drop?.();
    });

    /** Runs `call` with every row waiting for the folder (rollups empty) and a fold committing after its first read. */
    async function withFoldBetweenReads(call: () => Promise<void>): Promise<void> {
      await folder.transaction((trx) => resetRollups(trx));
      assert.equal(await rowsToBackfill(folder), entries.length);
      const before = hook.folds();
      hook.arm();
      await call();
      assert.equal(hook.folds(), before + 1, 'a fold committed between its reads');
      assert.equal(await rowsToBackfill(folder), entries.length / 2, 'half the rows were folded');
    }

    test('summary', () =>
      withFoldBetweenReads(async () => {
        const totals = await analytics.summary(range);
        assert.deepEqual([totals.requests, totals.total_tokens], [selected.length, tokens(selected)]);
      }));

    test('count', () => withFoldBetweenReads(async () => assert.equal(await analytics.count(range), selected.length)));

    test('groups', () =>
      withFoldBetweenReads(async () => {
        const groups = await analytics.groups(range, 'model');
        const expected = (model: string) => selected.filter((e) => e.model === model);
        assert.deepEqual(
          Object.fromEntries(groups.map((g) => [g.key, [g.requests, g.total_tokens]])),
          Object.fromEntries(models.map((model) => [model, [expected(model).length, tokens(expected(model))]])),
        );
      }));

    test('time series', () =>
      withFoldBetweenReads(async () => {
        const points = await analytics.timeSeries(range, 'hour');
        assert.deepEqual(new Map(points.map((p) => [p.timestamp, p.requests])), byHour(selected));
      }));
  });
}
