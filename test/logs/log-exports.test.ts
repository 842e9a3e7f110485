import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { LogExportRunner } from '../../gateway/logs/log-export-runner.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { RequestLogsRepository } from '../../store/repositories/request-logs.js';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { privateDb } from '../helpers/test-db.js';
import { logEntry, otherWorkspace, seedLogs, workspaceKey } from './log-fixtures.js';

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const FIELDS = ['id', 'created_at', 'status', 'model', 'metadata'];

function lines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

for (const engine of storeEngines()) {
  describe(`log exports (${engine.name})`, () => {
    let app: TestApp;
    let entries: RequestLogEntry[];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine });
      const ids = { organisation_id: app.boot.organisationId, workspace_id: app.boot.workspaceId };
      entries = Array.from({ length: 25 }, (_, i) =>
        logEntry({ ...ids, created_at: T0 + i * 1000, status: i % 5 === 0 ? 500 : 200, model: i % 2 ? 'model-a' : 'model-b', metadata: { n: String(i) } }),
      );
      await seedLogs(app, entries);
    });
    after(() => app.close());

    async function createExport(payload: Record<string, unknown>, headers = admin()) {
      return app.http.post('/v1/logs/exports').set(headers).send(payload);
    }

    test('an export streams: each page of rows is read, appended to the file and let go before the next is read', async () => {
      const org = randomUUID();
      const many = Array.from({ length: 1234 }, (_, i) => logEntry({ organisation_id: org, workspace_id: 'w', created_at: T0 + Math.floor(i / 3) * 1000 }));
      await new RequestLogsRepository(app.services.db).insertMany(many);
      const store = app.services.store;
      const now = new Date().toISOString();
      const record = await store.logExports.create({ organisation_id: org, workspace_id: null, description: 'stream', filters: {}, requested_fields: ['id'], created_by: null }, now);
      await store.logExports.transition(record.id, ['draft'], 'in_progress', { total_rows: await store.requestLogs.count({ organisation_id: org }), started_at: now }, now);
      const dir = mkdtempSync(path.join(tmpdir(), 'gw-export-stream-'));
      const runner = new LogExportRunner(store, { dir, pageSize: 100 }, () => Date.now(), pino({ level: 'silent' }));
      // Watch every read: how many rows it asked for and got, and how many lines the file held when it was made.
      const reads: Array<{ limit: number; got: number; linesBefore: number }> = [];
      const page = store.requestLogs.pageAscending.bind(store.requestLogs);
      store.requestLogs.pageAscending = async (filter, cursor, limit) => {
        const linesBefore = existsSync(runner.filePath(record.id)) ? readFileSync(runner.filePath(record.id), 'utf8').split('\n').length - 1 : 0;
        const rows = await page(filter, cursor, limit);
        reads.push({ limit, got: rows.length, linesBefore });
        return rows;
      };
      try {
        runner.run(record.id);
        await runner.idle();
      } finally {
        store.requestLogs.pageAscending = page;
      }
      assert.equal((await store.logExports.getById(record.id))?.status, 'success');
      assert.equal(reads.length, 14, '13 pages of at most 100 rows and the empty read that ends it');
      reads.forEach((read, i) => {
        assert.equal(read.limit, 100);
        assert.equal(read.linesBefore, Math.min(i * 100, many.length), `read ${i + 1} came after the pages before it were on disk`);
      });
      const oldestFirst = [...many].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1)).map((e) => e.id);
      assert.deepEqual(lines(readFileSync(runner.filePath(record.id), 'utf8')).map((r) => r.id), oldestFirst, 'every row once, oldest first');
      rmSync(dir, { recursive: true, force: true });
    });

    test('life cycle: draft -> in_progress -> success, download as JSON lines with the requested fields', async () => {
      const created = await createExport({ requested_fields: FIELDS, filters: { model: 'model-a' }, description: 'model a' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.status, 'draft');
      const id = created.body.id;
      assert.equal((await app.http.get(`/v1/logs/exports/${id}/download`).set(admin())).status, 409, 'a draft has nothing to download');

      const started = await app.http.post(`/v1/logs/exports/${id}/start`).set(admin());
      assert.equal(started.status, 200, JSON.stringify(started.body));
      assert.equal(started.body.status, 'in_progress');
      assert.equal(started.body.total_rows, 12);
      assert.equal((await app.http.post(`/v1/logs/exports/${id}/start`).set(admin())).status, 409, 'start twice');
      await app.services.logExports.idle();

      const done = await app.http.get(`/v1/logs/exports/${id}`).set(admin());
      assert.equal(done.body.status, 'success');
      assert.equal(done.body.processed_rows, 12);
      assert.ok(done.body.finished_at);

      const download = await app.http.get(`/v1/logs/exports/${id}/download`).set(admin()).buffer(true).parse((res, cb) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => cb(null, text));
      });
      assert.equal(download.status, 200);
      assert.match(String(download.headers['content-type']), /application\/x-ndjson/);
      const rows = lines(download.body as string);
      const expected = entries.filter((e) => e.model === 'model-a');
      assert.deepEqual(rows.map((r) => r.id), expected.map((e) => e.id), 'every matching log once, oldest first');
      assert.deepEqual(Object.keys(rows[0]!).sort(), [...FIELDS].sort());
      assert.equal(rows[0]!.created_at, new Date(expected[0]!.created_at).toISOString());

      const listed = await app.http.get('/v1/logs/exports').set(admin());
      assert.ok(listed.body.data.some((e: { id: string }) => e.id === id));
    });

    test('an export in progress must be cancelled before delete; a deleted export is hidden from get and list', async () => {
      const created = await createExport({ requested_fields: ['id'] });
      const id = created.body.id;
      assert.equal((await app.http.post(`/v1/logs/exports/${id}/cancel`).set(admin())).status, 409, 'a draft is not in progress');
      // In progress without a worker on it, so the state holds still for the assertions.
      await app.services.store.logExports.transition(id, ['draft'], 'in_progress', { started_at: new Date().toISOString() }, new Date().toISOString());

      const refused = await app.http.delete(`/v1/logs/exports/${id}`).set(admin());
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'export_in_progress');

      const cancelled = await app.http.post(`/v1/logs/exports/${id}/cancel`).set(admin());
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'stopped');

      const deleted = await app.http.delete(`/v1/logs/exports/${id}`).set(admin());
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, { id, object: 'log_export', deleted: true });
      assert.equal((await app.http.get(`/v1/logs/exports/${id}`).set(admin())).status, 404);
      assert.equal((await app.http.delete(`/v1/logs/exports/${id}`).set(admin())).status, 404);
      const listed = await app.http.get('/v1/logs/exports').set(admin());
      assert.ok(!listed.body.data.some((e: { id: string }) => e.id === id));
      const row = await app.services.db('log_exports').where({ id }).first();
      assert.ok(row.archived_at, 'the row is archived, not removed');
    });

    test('a worker notices a cancel and stops without finishing', async () => {
      const created = await createExport({ requested_fields: ['id'] });
      const id = created.body.id;
      const now = new Date().toISOString();
      await app.services.store.logExports.transition(id, ['draft'], 'in_progress', { started_at: now }, now);
      await app.services.store.logExports.transition(id, ['in_progress'], 'stopped', { finished_at: now }, now);
      app.services.logExports.run(id);
      await app.services.logExports.idle();
      const after = await app.http.get(`/v1/logs/exports/${id}`).set(admin());
      assert.equal(after.body.status, 'stopped');
      assert.equal(after.body.processed_rows, 0);
    });

    test('denied fields are refused; field-restrictions shows the effective list per workspace', async () => {
      const org = (await app.services.store.organisations.get(app.boot.organisationId))!;
      await app.services.store.organisations.updateSettings(org.id, { ...org.settings, export_settings: { deniedFields: ['request_body', 'response_body'] } }, new Date().toISOString());
      await otherWorkspace(app, 'restricted', { export_settings: { deniedFields: ['metadata'] } });

      const denied = await createExport({ requested_fields: ['id', 'request_body'] });
      assert.equal(denied.status, 400);
      assert.equal(denied.body.error.code, 'export_field_denied');
      assert.equal(denied.body.error.param, 'requested_fields');
      assert.match(denied.body.error.message, /request_body/);

      const byWorkspace = await createExport({ workspace_id: 'restricted', requested_fields: ['id', 'metadata'] });
      assert.equal(byWorkspace.status, 400);
      assert.equal((await createExport({ workspace_id: 'restricted', requested_fields: ['id', 'model'] })).status, 201);

      const restricted = await app.http.get('/v1/logs/exports/field-restrictions').query({ workspace_id: 'restricted' }).set(admin());
      assert.equal(restricted.status, 200);
      assert.deepEqual(restricted.body.denied_fields, ['metadata', 'request_body', 'response_body']);
      const plain = await app.http.get('/v1/logs/exports/field-restrictions').query({ workspace_id: 'default' }).set(admin());
      assert.deepEqual(plain.body.denied_fields, ['request_body', 'response_body']);
      assert.equal((await createExport({ requested_fields: ['nope'] })).status, 400, 'unknown field');
      await app.services.store.organisations.updateSettings(org.id, org.settings, new Date().toISOString());
    });

    test('workspace keys see their workspace exports only and need logs.export', async () => {
      const key = await workspaceKey(app, 'restricted', ['logs.export']);
      const own = await createExport({ requested_fields: ['id'] }, { 'x-gw-api-key': key });
      assert.equal(own.status, 201);
      const listed = await app.http.get('/v1/logs/exports').set({ 'x-gw-api-key': key });
      assert.deepEqual(listed.body.data.map((e: { workspace_id: string }) => e.workspace_id).filter((w: string) => w !== own.body.workspace_id), []);
      const adminOnly = (await app.http.get('/v1/logs/exports').set(admin())).body.data.find((e: { workspace_id: string | null }) => e.workspace_id === null);
      assert.equal((await app.http.get(`/v1/logs/exports/${adminOnly.id}`).set({ 'x-gw-api-key': key })).status, 404);
      const noScope = await workspaceKey(app, 'restricted', ['logs.list']);
      assert.equal((await app.http.get('/v1/logs/exports').set({ 'x-gw-api-key': noScope })).status, 403);
    });
  });

  describe(`log exports survive a restart (${engine.name})`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-export-restart-'));
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    test('an export left in_progress resumes from its checkpoint on the next start: no row lost or doubled', async () => {
      const db = await privateDb(engine.databaseUrl);
      const shared = engine.databaseUrl ? db : { options: { sqliteFile: path.join(dataDir, 'gw.sqlite') }, drop: async () => undefined };
      const env = { GW_DATA_DIR: dataDir };
      try {
        const first = await startTestApp({ engine, sharedDb: shared, env });
        const ids = { organisation_id: first.boot.organisationId, workspace_id: first.boot.workspaceId };
        const entries = Array.from({ length: 6 }, (_, i) => logEntry({ ...ids, created_at: T0 + i * 1000 }));
        await seedLogs(first, entries);
        const created = await first.http.post('/v1/logs/exports').set({ 'x-gw-api-key': first.adminKey }).send({ requested_fields: ['id'] });
        const id = created.body.id;
        // The state a crash leaves: two rows checkpointed, a third appended after the checkpoint, half a fourth.
        const checkpointed = entries.slice(0, 2).map((e) => JSON.stringify({ id: e.id }) + '\n').join('');
        mkdirSync(path.dirname(first.services.logExports.filePath(id)), { recursive: true });
        writeFileSync(first.services.logExports.filePath(id), checkpointed + JSON.stringify({ id: entries[2]!.id }) + '\n{"id":"half');
        const now = new Date().toISOString();
        await first.services.store.logExports.transition(
          id,
          ['draft'],
          'in_progress',
          { started_at: now, total_rows: 6, processed_rows: 2, resume_cursor: [entries[1]!.created_at, entries[1]!.id], bytes_written: Buffer.byteLength(checkpointed) },
          now,
        );
        await first.close();

        const second = await startTestApp({ engine, sharedDb: shared, env });
        try {
          await second.services.logExports.idle();
          const record = await second.http.get(`/v1/logs/exports/${id}`).set({ 'x-gw-api-key': second.adminKey });
          assert.equal(record.body.status, 'success');
          assert.equal(record.body.processed_rows, 6);
          const download = await second.http.get(`/v1/logs/exports/${id}/download`).set({ 'x-gw-api-key': second.adminKey }).buffer(true).parse((res, cb) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => cb(null, text));
          });
          assert.deepEqual(lines(download.body as string).map((r) => r.id), entries.map((e) => e.id));
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
      }
    });

    test('an export whose file lost checkpointed rows fails on the next start and says why', async () => {
      const db = await privateDb(engine.databaseUrl);
      const shared = engine.databaseUrl ? db : { options: { sqliteFile: path.join(dataDir, 'gw-lost.sqlite') }, drop: async () => undefined };
      const env = { GW_DATA_DIR: dataDir };
      try {
        const first = await startTestApp({ engine, sharedDb: shared, env });
        const ids = { organisation_id: first.boot.organisationId, workspace_id: first.boot.workspaceId };
        const entries = Array.from({ length: 3 }, (_, i) => logEntry({ ...ids, created_at: T0 + i * 1000 }));
        await seedLogs(first, entries);
        const created = await first.http.post('/v1/logs/exports').set({ 'x-gw-api-key': first.adminKey }).send({ requested_fields: ['id'] });
        const id = created.body.id;
        // Two rows checkpointed, but the file is gone (another instance's disk, or removed by hand).
        const now = new Date().toISOString();
        await first.services.store.logExports.transition(
          id,
          ['draft'],
          'in_progress',
          { started_at: now, total_rows: 3, processed_rows: 2, resume_cursor: [entries[1]!.created_at, entries[1]!.id], bytes_written: 90 },
          now,
        );
        await first.close();

        const second = await startTestApp({ engine, sharedDb: shared, env });
        try {
          await second.services.logExports.idle();
          const record = await second.http.get(`/v1/logs/exports/${id}`).set({ 'x-gw-api-key': second.adminKey });
          assert.equal(record.body.status, 'failed');
          assert.equal(record.body.error.code, 'export_failed');
          assert.match(record.body.error.message, /holds 0 of the 90 bytes/);
          assert.equal(record.body.processed_rows, 2, 'nothing was written past the loss');
          assert.equal((await second.http.get(`/v1/logs/exports/${id}/download`).set({ 'x-gw-api-key': second.adminKey })).status, 409);
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
}
