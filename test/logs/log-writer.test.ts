import assert from 'node:assert/strict';
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { BatchingLogSink, type LogWriter } from '../../gateway/logs/batching-log-sink.js';
import { LogSpool } from '../../gateway/logs/log-spool.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { loadConfig } from '../../core/config.js';
import { closeServices, createServices } from '../../server/services-factory.js';
import { storeEngines } from '../helpers/engines.js';
import { privateDb } from '../helpers/test-db.js';
import { logEntry } from './log-fixtures.js';

const silent = pino({ level: 'silent' });
const ids = { organisation_id: 'org', workspace_id: 'ws' };

class RecordingWriter implements LogWriter {
  batches: RequestLogEntry[][] = [];
  failNext = 0;
  async insertMany(entries: RequestLogEntry[]): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('database unavailable');
    }
    this.batches.push(entries);
  }
}

const options = { batchSize: 3, flushIntervalMs: 60_000, maxQueue: 100, headersToMask: [] as string[], maxBodyBytes: 1024 };

describe('request log writer (unit)', () => {
  test('a full batch starts a write; a write takes everything queued by then; the rest waits for the timer or flush', async () => {
    const writer = new RecordingWriter();
    const sink = new BatchingLogSink(writer, options, silent);
    for (let i = 0; i < 7; i++) sink.record(logEntry(ids));
    // The first three started a write; the four queued while it ran go in one write, not 3 + 1.
    assert.deepEqual(writer.batches.map((b) => b.length), [3]);
    await sink.flush();
    assert.deepEqual(writer.batches.map((b) => b.length), [3, 4]);
    assert.equal(sink.pending, 0);
    sink.record(logEntry(ids));
    assert.equal(sink.pending, 1, 'less than a batch waits');
    await sink.flush();
    assert.deepEqual(writer.batches.map((b) => b.length), [3, 4, 1]);
  });

  test('record never throws or waits, and a failed write is retried on flush without losing entries', async () => {
    const writer = new RecordingWriter();
    writer.failNext = 1;
    const sink = new BatchingLogSink(writer, options, silent);
    sink.record(logEntry(ids));
    sink.record(logEntry(ids));
    await sink.flush(); // first attempt fails: the batch goes back into the queue
    assert.equal(sink.pending, 2);
    await sink.flush();
    assert.equal(writer.batches.flat().length, 2);
  });

  test('flush writes what was queued before it and ends under steady traffic', async () => {
    // Traffic that never stops: every write brings three new entries.
    const sink: BatchingLogSink = new BatchingLogSink(
      {
        insertMany: async (entries) => {
          await new Promise((resolve) => setImmediate(resolve)); // the write's I/O
          writer.batches.push(entries);
          for (let i = 0; i < 3 && writer.batches.length < 1000; i++) sink.record(logEntry({ ...ids, trace_id: 'later' }));
        },
      },
      options,
      silent,
    );
    const writer = { batches: [] as RequestLogEntry[][] };
    for (let i = 0; i < 7; i++) sink.record(logEntry({ ...ids, trace_id: 'before' }));
    await sink.flush();
    const written = writer.batches.flat();
    assert.equal(written.filter((entry) => entry.trace_id === 'before').length, 7);
    assert.ok(writer.batches.length <= 4, `flush ran on for ${writer.batches.length} writes`);
  });

  test('past the queue cap the oldest entries are dropped and counted', async () => {
    const writer = new RecordingWriter();
    writer.failNext = 100;
    const sink = new BatchingLogSink(writer, { ...options, batchSize: 100, maxQueue: 5 }, silent);
    const entries = Array.from({ length: 8 }, (_, i) => logEntry({ ...ids, trace_id: `t${i}` }));
    for (const entry of entries) sink.record(entry);
    assert.equal(sink.pending, 5);
    assert.equal(sink.dropped, 3);
    writer.failNext = 0;
    await sink.flush();
    assert.deepEqual(writer.batches.flat().map((e) => e.trace_id), ['t3', 't4', 't5', 't6', 't7']);
  });

  test('a store outage longer than the queue holds loses nothing: past the cap entries spill to the data directory, and all are written once the store is back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-spool-'));
    try {
      const writer = new RecordingWriter();
      writer.failNext = Infinity; // the store is down
      const sink = new BatchingLogSink(writer, { ...options, maxQueue: 10, spool: new LogSpool(dir, 1024 ** 2), behindAfterMs: 1000 }, silent);
      const entries = Array.from({ length: 57 }, (_, i) => logEntry({ ...ids, trace_id: `t${i}`, created_at: Date.now() - 5000 }));
      for (const entry of entries) sink.record(entry);
      await sink.flush(); // fails: nothing written
      assert.equal(sink.dropped, 0);
      assert.equal(sink.pending, 57);
      assert.ok(sink.spoolBytes > 0, 'the overflow is on disk');
      assert.equal(sink.behind(), true, 'the backlog is older than allowed: /ready fails');
      writer.failNext = 0; // the store is back
      await sink.close();
      const written = writer.batches.flat().map((entry) => entry.trace_id).sort();
      assert.deepEqual(written, entries.map((entry) => entry.trace_id).sort(), 'every entry written exactly once');
      assert.equal(sink.pending, 0);
      assert.equal(sink.spoolBytes, 0);
      assert.equal(sink.behind(), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('once the store is back the spool is written back by the writer itself, with no new entry or stop to prompt it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-spool-'));
    try {
      const writer = new RecordingWriter();
      writer.failNext = Infinity;
      const sink = new BatchingLogSink(writer, { ...options, flushIntervalMs: 20, maxQueue: 10, spool: new LogSpool(dir, 1024 ** 2) }, silent);
      for (let i = 0; i < 40; i++) sink.record(logEntry({ ...ids, trace_id: `t${i}` }));
      await sink.flush();
      assert.ok(sink.spoolBytes > 0, 'the overflow is on disk');
      writer.failNext = 0;
      for (let i = 0; sink.pending > 0 && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(sink.pending, 0, 'the timer alone wrote the queue and the spool');
      assert.equal(writer.batches.flat().length, 40);
      await sink.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a stop while the store is down spools what is left; the next start writes it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-spool-'));
    try {
      const down = new RecordingWriter();
      down.failNext = Infinity;
      const first = new BatchingLogSink(down, { ...options, spool: new LogSpool(dir, 1024 ** 2) }, silent);
      const entries = Array.from({ length: 5 }, (_, i) => logEntry({ ...ids, trace_id: `s${i}` }));
      for (const entry of entries) first.record(entry);
      await first.close(50);
      assert.equal(down.batches.length, 0);
      const up = new RecordingWriter();
      const next = new BatchingLogSink(up, { ...options, spool: new LogSpool(dir, 1024 ** 2) }, silent);
      assert.equal(next.pending, 5, 'the spooled entries are waiting at start');
      await next.close();
      assert.deepEqual(up.batches.flat().map((entry) => entry.trace_id).sort(), ['s0', 's1', 's2', 's3', 's4']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('ORGANISATION_HEADERS_TO_MASK headers are hashed (once) and oversized bodies are capped', async () => {
    const writer = new RecordingWriter();
    const sink = new BatchingLogSink(writer, { ...options, headersToMask: ['x-team-secret'] }, silent);
    const already = 'sha256:' + 'a'.repeat(64);
    sink.record(
      logEntry({
        ...ids,
        request_headers: { 'X-Team-Secret': 'hunter2', 'x-other': 'kept', authorization: already },
        request_body: { text: 'x'.repeat(5000) },
      }),
    );
    await sink.flush();
    const [written] = writer.batches.flat();
    assert.equal(written!.request_headers['X-Team-Secret'], 'sha256:' + createHash('sha256').update('hunter2').digest('hex'));
    assert.equal(written!.request_headers['x-other'], 'kept');
    assert.equal(written!.request_headers.authorization, already);
    const body = written!.request_body as { gw_truncated: boolean; bytes: number; preview: string };
    assert.equal(body.gw_truncated, true);
    assert.ok(body.bytes > 5000);
    assert.ok(body.preview.length <= 1024);
  });
});

for (const engine of storeEngines()) {
  describe(`request log writer on the real shutdown path (${engine.name})`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-logs-'));
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    test('entries queued before shutdown are all in the table afterwards; masked headers are hashed', async () => {
      const db = await privateDb(engine.databaseUrl);
      const dbOptions = engine.databaseUrl ? db.options : { sqliteFile: path.join(dataDir, 'gw.sqlite') };
      const config = loadConfig({
        GW_DATA_DIR: dataDir,
        GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        GW_LOG_LEVEL: 'silent',
        GW_LOG_BATCH_SIZE: '400',
        // Long enough that only full batches and the shutdown flush write anything.
        GW_LOG_FLUSH_INTERVAL_MS: '60000',
        ORGANISATION_HEADERS_TO_MASK: 'X-Team-Secret',
      });
      try {
        const first = await createServices(config, { db: dbOptions });
        const entries = Array.from({ length: 1050 }, (_, i) =>
          logEntry({ ...ids, created_at: 1_700_000_000_000 + i, request_headers: { 'x-team-secret': `s${i}` } }),
        );
        for (const entry of entries) first.requestLogs.record(entry);
        await closeServices(first);

        const second = await createServices(config, { db: dbOptions });
        const rows = await second.db('request_logs').select('id', 'request_headers');
        assert.equal(rows.length, 1050);
        assert.deepEqual(new Set(rows.map((r: { id: string }) => r.id)), new Set(entries.map((e) => e.id)));
        assert.ok(!JSON.stringify(rows).includes('"s1"'), 'masked header values are not stored in clear');
        const stored = (await second.store.requestLogs.get({ organisation_id: 'org' }, entries[7]!.id))!;
        assert.equal(stored.request_headers['x-team-secret'], 'sha256:' + createHash('sha256').update('s7').digest('hex'));
        await closeServices(second);
      } finally {
        await db.drop();
      }
    });
  });
}
