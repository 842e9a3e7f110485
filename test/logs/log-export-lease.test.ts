import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Knex } from 'knex';
import type { RequestLogEntry } from '../../core/request-log.js';
import { LogExportRunner, type LogExportRunnerOptions } from '../../gateway/logs/log-export-runner.js';
import { createLogger } from '../../core/logger.js';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { Store } from '../../store/store.js';
import { storeEngines } from '../helpers/engines.js';
import { sharedDb } from '../helpers/test-db.js';
import { logEntry } from './log-fixtures.js';

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const LEASE_MS = 30_000;
const PAGE = 4;
const logger = createLogger('silent');

/**
 * The store as one runner sees it, with page reads from the `blockFrom`-th on held until `open()`:
 * the runner then sits inside an export holding its lease, like an instance that stalled or died.
 */
function gatedStore(store: Store, blockFrom: number) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const blocked = new Promise<void>((resolve) => (reached = resolve));
  let calls = 0;
  const requestLogs = {
    pageAscending: async (...args: Parameters<Store['requestLogs']['pageAscending']>) => {
      if (calls++ >= blockFrom) {
        reached();
        await gate;
      }
      return store.requestLogs.pageAscending(...args);
    },
  };
  return { store: { logExports: store.logExports, requestLogs } as unknown as Store, blocked, open };
}

for (const engine of storeEngines()) {
  describe(`log export leases (${engine.name})`, () => {
    let database: Awaited<ReturnType<typeof sharedDb>>;
    let knexA: Knex;
    let knexB: Knex;
    let storeA: Store;
    let storeB: Store;
    let ids: { organisation_id: string; workspace_id: string };
    let entries: RequestLogEntry[];
    let clock = T0;
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-export-lease-'));
    const iso = (ms = clock) => new Date(ms).toISOString();

    before(async () => {
      database = await sharedDb(engine.databaseUrl);
      // Two connections to one database: two instances.
      knexA = createDb(database.options);
      knexB = createDb(database.options);
      await migrateToLatest(knexA);
      storeA = new Store(knexA);
      storeB = new Store(knexB);
      const organisation = await storeA.organisations.create({ name: 'Lease', slug: 'lease' }, iso());
      const workspace = await storeA.workspaces.create({ organisation_id: organisation.id, name: 'main', slug: 'main', settings: {} }, iso());
      ids = { organisation_id: organisation.id, workspace_id: workspace.id };
      entries = Array.from({ length: 10 }, (_, i) => logEntry({ ...ids, created_at: T0 - 100_000 + i * 1000 }));
      await storeA.requestLogs.insertMany(entries);
    });

    after(async () => {
      await knexA.destroy();
      await knexB.destroy();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    function runner(store: Store, owner: string, options: Partial<LogExportRunnerOptions> = {}) {
      return new LogExportRunner(store, { dir, pageSize: PAGE, owner, leaseMs: LEASE_MS, ...options }, () => clock, logger);
    }

    async function startedExport(): Promise<string> {
      const record = await storeA.logExports.create(
        { ...ids, description: null, filters: { end_time: iso() }, requested_fields: ['id'], created_by: null },
        iso(),
      );
      assert.ok(await storeA.logExports.transition(record.id, ['draft'], 'in_progress', { started_at: iso(), total_rows: entries.length }, iso()));
      return record.id;
    }

    const lease = async (id: string) => (await knexA('log_exports').where({ id }).first()) as { lease_owner: string | null; lease_expires_at: string | null };
    const exported = (id: string) =>
      readFileSync(path.join(dir, `${id}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id);

    test('two instances claiming the same export at once: exactly one wins', async () => {
      const id = await startedExport();
      const claims = await Promise.all([
        storeA.logExports.claimLease(id, 'a', iso(), iso(clock + LEASE_MS)),
        storeB.logExports.claimLease(id, 'b', iso(), iso(clock + LEASE_MS)),
      ]);
      assert.equal(claims.filter(Boolean).length, 1, JSON.stringify(claims));
      assert.equal((await lease(id)).lease_owner, claims[0] ? 'a' : 'b');
      assert.equal(await storeA.logExports.claimLease(id, 'c', iso(), iso(clock + LEASE_MS)), false, 'a live lease is not taken');
      await storeA.logExports.transition(id, ['in_progress'], 'stopped', { finished_at: iso() }, iso());
    });

    test('only the runner holding the lease writes an export; the lease is released at the end', async () => {
      const id = await startedExport();
      const gated = gatedStore(storeA, 0);
      const a = runner(gated.store, 'a');
      const b = runner(storeB, 'b');
      a.run(id);
      await gated.blocked;
      assert.equal((await lease(id)).lease_owner, 'a');

      b.run(id);
      await b.sweep();
      await b.idle();
      const meanwhile = await storeB.logExports.getById(id);
      assert.equal(meanwhile!.processed_rows, 0, 'b did not run it');
      assert.equal((await lease(id)).lease_owner, 'a');

      gated.open();
      await a.idle();
      const done = await storeB.logExports.getById(id);
      assert.equal(done!.status, 'success');
      assert.equal(done!.processed_rows, entries.length);
      assert.deepEqual(exported(id), entries.map((e) => e.id), 'every row once');
      const released = await lease(id);
      assert.equal(released.lease_owner, null);
      assert.equal(released.lease_expires_at, null);
    });

    test('a holder that stops renewing (crash) loses the export once its lease lapses; the other resumes from the checkpoint', async () => {
      clock = T0;
      const id = await startedExport();
      const gated = gatedStore(storeA, 1);
      const a = runner(gated.store, 'a');
      const b = runner(storeB, 'b');
      a.run(id);
      await gated.blocked;
      // One page checkpointed; a crash mid-write leaves half a line after it.
      appendFileSync(path.join(dir, `${id}.jsonl`), '{"id":"half');
      assert.equal((await storeB.logExports.getById(id))!.processed_rows, PAGE);

      clock += 20_000;
      await a.renewLeases();
      clock += 20_000;
      await b.sweep();
      await b.idle();
      assert.equal((await lease(id)).lease_owner, 'a', 'renewed at +20s, the lease holds past the first 30s');

      // From here a renews no more.
      clock += 9_000;
      await b.sweep();
      await b.idle();
      assert.equal((await lease(id)).lease_owner, 'a', 'not lapsed yet');

      clock += 2_000;
      await b.sweep();
      await b.idle();
      const done = await storeB.logExports.getById(id);
      assert.equal(done!.status, 'success');
      assert.equal(done!.processed_rows, entries.length);
      assert.deepEqual(exported(id), entries.map((e) => e.id), 'no row lost or doubled');

      // The stalled holder wakes up: it no longer holds the lease and writes nothing.
      gated.open();
      await a.idle();
      assert.deepEqual(exported(id), entries.map((e) => e.id));
      assert.equal((await storeB.logExports.getById(id))!.status, 'success');
    });

    test('a cancel stops the running export at the next page and frees its lease', async () => {
      clock = T0;
      const id = await startedExport();
      const gated = gatedStore(storeA, 1);
      const a = runner(gated.store, 'a');
      a.run(id);
      await gated.blocked;
      assert.ok(await storeB.logExports.transition(id, ['in_progress'], 'stopped', { finished_at: iso() }, iso()));
      gated.open();
      await a.idle();

      const stopped = await storeB.logExports.getById(id);
      assert.equal(stopped!.status, 'stopped');
      assert.equal(stopped!.processed_rows, PAGE);
      assert.equal(exported(id).length, PAGE, 'nothing written after the cancel');
      assert.equal((await lease(id)).lease_owner, null);
      const b = runner(storeB, 'b');
      await b.sweep();
      await b.idle();
      assert.equal((await storeB.logExports.getById(id))!.status, 'stopped', 'a cancelled export is not picked up again');
    });

    test('start() resumes lapsed exports at boot, and its periodic sweep takes over a lease that lapses later', async () => {
      clock = T0;
      const lapsed = await startedExport();
      assert.ok(await storeA.logExports.claimLease(lapsed, 'crashed', iso(), iso(clock - 1)));
      const live = await startedExport();
      assert.ok(await storeA.logExports.claimLease(live, 'crashed', iso(), iso(clock + LEASE_MS)));

      const b = runner(storeB, 'b', { sweepMs: 1, renewMs: 1 });
      try {
        await b.start();
        await b.idle();
        assert.equal((await storeB.logExports.getById(lapsed))!.status, 'success', 'resumed at boot');
        assert.equal((await lease(live)).lease_owner, 'crashed', 'a live lease is left alone at boot');

        clock += LEASE_MS + 1;
        // Wait (bounded) for a sweep tick to pick it up.
        for (let tick = 0; tick < 1000 && (await storeB.logExports.getById(live))!.status !== 'success'; tick++) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          await b.idle();
        }
        assert.equal((await storeB.logExports.getById(live))!.status, 'success', 'taken over by the periodic sweep');
        assert.deepEqual(exported(live), entries.map((e) => e.id));
      } finally {
        await b.close();
      }
    });
  });
}
