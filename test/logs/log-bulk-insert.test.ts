/** Request log batches written by store/log-batch-write.ts read back exactly, on every store engine, inside and outside a caller's transaction. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { RequestLogsRepository } from '../../store/repositories/request-logs.js';
import { storeEngines } from '../helpers/engines.js';
import { privateDb } from '../helpers/test-db.js';
import { logEntry } from './log-fixtures.js';

for (const engine of storeEngines()) {
  describe(`request log batch insert (${engine.name})`, () => {
    let db: Knex;
    let drop: () => Promise<void>;
    const organisation_id = randomUUID();
    const workspace_id = randomUUID();
    before(async () => {
      const made = await privateDb(engine.databaseUrl);
      drop = made.drop;
      db = createDb(made.options);
      await migrateToLatest(db);
    });
    after(async () => {
      await db.destroy();
      await drop();
    });

    it('writes every row of a batch with booleans, nulls, JSON and derived columns intact', async () => {
      const streamed = logEntry({ organisation_id, workspace_id, stream: true, cache_status: 'HIT', metadata: { _user: 'ada' }, first_byte_ms: 12 });
      const failed = logEntry({ organisation_id, workspace_id, status: 502, api_key_id: '', error: { code: 'upstream_error', message: 'boom', type: 'api_error' }, response_body: null });
      const many = Array.from({ length: 450 }, () => logEntry({ organisation_id, workspace_id }));
      await new RequestLogsRepository(db).insertMany([streamed, failed, ...many]);

      const repository = new RequestLogsRepository(db);
      assert.equal(await repository.count({ organisation_id }), 452);
      const first = await repository.get({ organisation_id }, streamed.id);
      assert.equal(first?.stream, true);
      assert.equal(first?.first_byte_ms, 12);
      assert.deepEqual(first?.metadata, { _user: 'ada' });
      assert.deepEqual(first?.request_body, streamed.request_body);
      const second = await repository.get({ organisation_id }, failed.id);
      assert.equal(second?.stream, false);
      assert.deepEqual(second?.error, failed.error);
      assert.equal(second?.response_body, null);

      type Derived = { id: string; cache_hit: unknown; is_error: unknown; user_id: string | null; api_key_id: string | null };
      const derived: Derived[] = await db('request_logs').whereIn('id', [streamed.id, failed.id]).select('id', 'cache_hit', 'is_error', 'user_id', 'api_key_id');
      const row = (id: string) => derived.find((candidate) => candidate.id === id)!;
      assert.deepEqual(
        { cache_hit: Boolean(row(streamed.id).cache_hit), is_error: Boolean(row(streamed.id).is_error), user_id: row(streamed.id).user_id, api_key_id: row(streamed.id).api_key_id },
        { cache_hit: true, is_error: false, user_id: 'ada', api_key_id: streamed.api_key_id },
      );
      assert.equal(Boolean(row(failed.id).is_error), true);
      assert.equal(row(failed.id).api_key_id, null, 'an empty key id is stored as NULL');
    });

    it('keeps tabs, newlines, backslashes and quotes in text and JSON exactly (COPY\'s escapes)', async () => {
      const awkward = 'a\tb\nc\\d\re "quoted" \\N \\\\t';
      const entry = logEntry({ organisation_id, workspace_id, trace_id: awkward, model: awkward, metadata: { note: awkward }, request_body: { messages: [{ role: 'user', content: awkward }] } });
      await new RequestLogsRepository(db).insertMany([entry], 'custom', { rollUp: false });
      const stored = await new RequestLogsRepository(db).get({ organisation_id }, entry.id);
      assert.equal(stored?.trace_id, awkward);
      assert.equal(stored?.model, awkward);
      assert.deepEqual(stored?.metadata, { note: awkward });
      assert.deepEqual(stored?.request_body, entry.request_body);
    });

    it('a batch partly stored already adds only its new rows, each once', async () => {
      const first = Array.from({ length: 3 }, () => logEntry({ organisation_id, workspace_id }));
      const more = Array.from({ length: 2 }, () => logEntry({ organisation_id, workspace_id }));
      const repository = new RequestLogsRepository(db);
      await repository.insertMany(first, 'custom', { rollUp: false });
      await repository.insertMany([...first, ...more], 'custom', { rollUp: false });
      await repository.insertMany([...more, ...first]);
      const ids = [...first, ...more].map((entry) => entry.id);
      const counted = (await db('request_logs').whereIn('id', ids).count({ n: '*' }).first()) as { n: number | string };
      assert.equal(Number(counted.n), 5);
    });

    it('joins a caller\'s transaction: a rollback leaves no rows', async () => {
      const entry = logEntry({ organisation_id, workspace_id });
      await assert.rejects(
        db.transaction(async (trx) => {
          await new RequestLogsRepository(trx).insertMany([entry]);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal(await new RequestLogsRepository(db).get({ organisation_id }, entry.id), undefined);
    });
  });
}
