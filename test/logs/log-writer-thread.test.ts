import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { RequestLogsRepository, ThreadedRequestLogWriter, toLogRow } from '../../store/repositories/request-logs.js';
import { SqliteWriterThread } from '../../store/sqlite-writer-thread.js';
import { logEntry } from './log-fixtures.js';

// On a SQLite file (what `make run` uses) gateway logs are written by a worker thread with its own connection.
describe('request logs through the SQLite writer thread', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-writer-thread-'));
  const file = path.join(dir, 'gw.sqlite');
  let db: Knex;
  const ids = { organisation_id: 'org-thread', workspace_id: 'ws-thread' };

  before(async () => {
    db = createDb({ sqliteFile: file });
    await migrateToLatest(db);
  });
  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits each batch before it resolves, with the rows the repository writes', async () => {
    const writer = new ThreadedRequestLogWriter(new SqliteWriterThread(file), { outbox: false });
    try {
      const streamed = logEntry({ ...ids, stream: true, cache_status: 'HIT', metadata: { _user: 'ada' }, first_byte_ms: 12 });
      const many = Array.from({ length: 300 }, () => logEntry(ids));
      await writer.insertMany([streamed, ...many]);
      const repository = new RequestLogsRepository(db);
      assert.equal(await repository.count({ organisation_id: ids.organisation_id }), 301);
      const read = await repository.get({ organisation_id: ids.organisation_id }, streamed.id);
      assert.equal(read?.stream, true);
      assert.equal(read?.cache_status, 'HIT');
      assert.deepEqual(read?.metadata, { _user: 'ada' });
      assert.deepEqual(read?.request_body, streamed.request_body);
    } finally {
      await writer.close();
    }
  });

  it('on a data plane each added row is queued in the outbox in its batch; a batch written again queues nothing more; elsewhere nothing', async () => {
    const thread = new SqliteWriterThread(file);
    const queued = async (entries: Array<{ id: string }>) => (await db('log_outbox').whereIn('log_id', entries.map((entry) => entry.id)).select('log_id')).length;
    try {
      const dataPlane = new ThreadedRequestLogWriter(thread, { outbox: true });
      const batch = Array.from({ length: 5 }, () => logEntry(ids));
      await dataPlane.insertMany(batch);
      assert.equal(await queued(batch), 5);
      await db('log_outbox').whereIn('log_id', batch.slice(0, 2).map((entry) => entry.id)).delete();
      await dataPlane.insertMany(batch);
      assert.equal(await queued(batch), 3, 'rows already stored are not queued again');
      const elsewhere = Array.from({ length: 3 }, () => logEntry(ids));
      await new ThreadedRequestLogWriter(thread, { outbox: false }).insertMany(elsewhere);
      assert.equal(await queued(elsewhere), 0);
    } finally {
      await thread.close();
    }
  });

  it('a batch the database refuses fails with its reason, whole, and the thread goes on writing', async () => {
    const thread = new SqliteWriterThread(file);
    try {
      const good = logEntry(ids);
      const refused = logEntry({ ...ids, organisation_id: null as unknown as string });
      await assert.rejects(new ThreadedRequestLogWriter(thread, { outbox: false }).insertMany([good, refused]), /NOT NULL constraint failed: request_logs\.organisation_id/);
      assert.equal(await db('request_logs').where({ id: good.id }).first(), undefined, 'the batch is one transaction');
      await new ThreadedRequestLogWriter(thread, { outbox: false }).insertMany([good]);
      assert.equal((await db('request_logs').where({ id: good.id }).first())?.id, good.id);
    } finally {
      await thread.close();
    }
  });

  it('a batch larger than one message crosses in parts and is still one transaction: refused in its last part, none of it is written, and the thread goes on', async () => {
    const thread = new SqliteWriterThread(file);
    try {
      const rows = Array.from({ length: 250 }, () => toLogRow(logEntry(ids), 'gateway'));
      // The last part holds a row the database refuses: the parts before it were already in the thread.
      const refused = [...rows.slice(0, 249), toLogRow(logEntry({ ...ids, organisation_id: null as unknown as string }), 'gateway')];
      await assert.rejects(thread.writeLogs(refused, { outbox: false }), /NOT NULL constraint failed/);
      assert.equal((await db('request_logs').whereIn('id', rows.map((row) => row.id as string)).count({ n: '*' }))[0]!.n, 0);
      // A row with other columns in a later part: refused before it is sent, and the parts already sent are dropped.
      const odd = [...rows.slice(0, 249), { ...rows[249]!, unknown_column: 1 }];
      await assert.rejects(thread.writeLogs(odd, { outbox: false }), /log rows differ in their columns/);
      await thread.writeLogs(rows.slice(0, 120), { outbox: false });
      assert.equal((await db('request_logs').whereIn('id', rows.map((row) => row.id as string)).count({ n: '*' }))[0]!.n, 120, 'only the batch written whole is stored');
    } finally {
      await thread.close();
    }
  });

  it('a batch in flight when the thread stops fails (the sink keeps it), and the next insert starts a new thread', async () => {
    const thread = new SqliteWriterThread(file);
    const writer = new ThreadedRequestLogWriter(thread, { outbox: false });
    const lost = logEntry(ids);
    const inFlight = writer.insertMany([lost]);
    await thread.close();
    await assert.rejects(inFlight, /SQLite writer thread exited/);
    const next = logEntry(ids);
    await writer.insertMany([next]);
    assert.equal((await db('request_logs').where({ id: next.id }).first())?.id, next.id);
    await writer.close();
  });
});
