import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MAX_BYTES = 3 * 1024 * 1024;

for (const engine of fullEngines()) {
  describe(`files (${engine.name})`, () => {
    let app: TestApp;
    let client: OpenAI;
    before(async () => {
      app = await startTestApp({ engine, env: { GW_FILES_MAX_BYTES: String(MAX_BYTES), GW_METRICS_TOKEN: 'files-test-metrics-token' } });
      client = new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
    });
    after(() => app.close());

    test('files.create stores a file; retrieve, content and list give it back', async () => {
      const jsonl = '{"custom_id":"a"}\n{"custom_id":"b"}\n';
      const created = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'input.jsonl'), purpose: 'batch' });
      assert.match(created.id, /^file-/);
      assert.equal(created.object, 'file');
      assert.equal(created.bytes, Buffer.byteLength(jsonl));
      assert.equal(created.filename, 'input.jsonl');
      assert.equal(created.purpose, 'batch');
      assert.equal(created.status, 'processed');

      const got = await client.files.retrieve(created.id);
      assert.deepEqual(got, created);
      const content = await client.files.content(created.id);
      assert.equal(await content.text(), jsonl);

      const listed = await client.files.list();
      assert.ok(listed.data.some((file) => file.id === created.id));
    });

    test('a file of several chunks comes back byte for byte', async () => {
      const bytes = randomBytes(MAX_BYTES - 1000);
      const created = await client.files.create({ file: await toFile(bytes, 'blob.bin'), purpose: 'user_data' });
      assert.equal(created.bytes, bytes.length);
      const content = Buffer.from(await (await client.files.content(created.id)).arrayBuffer());
      assert.ok(content.equals(bytes));
    });

    test('a file over GW_FILES_MAX_BYTES is refused with 413 and nothing is kept', async () => {
      const before = await client.files.list({ purpose: 'assistants' });
      await assert.rejects(
        client.files.create({ file: await toFile(randomBytes(MAX_BYTES + 1), 'big.bin'), purpose: 'assistants' }),
        (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError);
          assert.equal(error.status, 413);
          assert.equal((error.error as { code?: string }).code, 'file_too_large');
          assert.match(error.message, /limit/);
          return true;
        },
      );
      const after = await client.files.list({ purpose: 'assistants' });
      assert.equal(after.data.length, before.data.length);
    });

    test('an unknown purpose and a form without a file are refused naming the field', async () => {
      const bad = await app.http.post('/v1/files').set('authorization', `Bearer ${app.adminKey}`).field('purpose', 'nonsense').attach('file', Buffer.from('x'), 'x.txt');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'purpose');
      const missing = await app.http.post('/v1/files').set('authorization', `Bearer ${app.adminKey}`).field('purpose', 'batch');
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'file');
    });

    test('a form cut short is refused with 400 invalid_multipart, nothing is kept, and gw goes on serving', async () => {
      const before = await client.files.list({ purpose: 'batch' });
      // The 67-byte upload that once ended the process: the file part never ends.
      const truncated = '--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc';
      const response = await app.http.post('/v1/files').set('authorization', `Bearer ${app.adminKey}`).set('content-type', 'multipart/form-data; boundary=x').send(truncated);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body.error, { code: 'invalid_multipart', message: 'The multipart body cannot be read: Unexpected end of form', param: 'file', type: 'invalid_request_error' });
      assert.equal((await client.files.list({ purpose: 'batch' })).data.length, before.data.length);
      assert.equal((await app.http.get('/health')).status, 200);
    });

    test('a form that breaks after its whole file part keeps no file', async () => {
      const rows = async () => Number((await app.services.db('files').count({ n: '*' }).first())?.n);
      const before = await rows();
      const brokenAfterFile = '--x\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{"a":1}\r\n--x\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbat';
      const response = await app.http.post('/v1/files').set('authorization', `Bearer ${app.adminKey}`).set('content-type', 'multipart/form-data; boundary=x').send(brokenAfterFile);
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, 'invalid_multipart');
      await until('the stored file is removed', async () => (await rows()) === before);
    });

    test('a client that breaks off its upload leaves no content behind', async () => {
      // Content without a file row: an upload in progress, or one that failed and was not cleaned up.
      const db = app.services.db;
      const orphanChunks = async () => Number((await db('file_chunks').whereNotIn('file_id', db('files').select('id')).count({ n: '*' }).first())?.n);
      await until('no other upload is in progress', async () => (await orphanChunks()) === 0);
      const head = '--x\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n';
      const { port } = new URL(app.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`POST /v1/files HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${app.adminKey}\r\ncontent-type: multipart/form-data; boundary=x\r\ncontent-length: ${MAX_BYTES}\r\n\r\n${head}`);
      // More than one stored chunk, so content is written before the client goes.
      socket.write(randomBytes(1024 * 1024 + 4096));
      await until('a chunk is stored', async () => (await orphanChunks()) > 0);
      socket.destroy();
      await until('the partial content is removed', async () => (await orphanChunks()) === 0);
      assert.equal((await app.http.get('/health')).status, 200);
    });

    test('a client that goes away mid-download ends the download: the handler returns and the read stops', async () => {
      // Larger than what the loopback socket's buffers hold, so the answer cannot all be written before the client goes.
      const piece = randomBytes(1024 * 1024);
      const created = await app.services.files.write(
        { organisationId: app.boot.organisationId, workspaceId: app.boot.workspaceId, purpose: 'user_data', filename: 'large.bin' },
        (async function* () {
          for (let i = 0; i < 24; i++) yield piece;
        })(),
        Number.MAX_SAFE_INTEGER,
      );
      // The request is counted once its handler has returned.
      const finished: string[] = [];
      const metrics = app.services.metrics!;
      const observe = metrics.observeHttp.bind(metrics);
      metrics.observeHttp = (route, status, seconds) => {
        finished.push(route);
        observe(route, status, seconds);
      };
      const { port } = new URL(app.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /v1/files/${created.id}/content HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${app.adminKey}\r\n\r\n`);
      await new Promise<void>((resolve) =>
        socket.once('data', () => {
          socket.pause();
          resolve();
        }),
      );
      socket.destroy();
      await until('the download handler has returned', async () => finished.some((route) => /content/.test(route)));
      metrics.observeHttp = observe;
    });

    test('list pages with limit and after, filters by purpose, in either order', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await client.files.create({ file: await toFile(Buffer.from(`v${i}`), `p${i}.txt`), purpose: 'vision' })).id);
      const firstPage = await client.files.list({ purpose: 'vision', limit: 2, order: 'asc' });
      assert.deepEqual(
        firstPage.data.map((file) => file.id),
        ids.slice(0, 2),
      );
      assert.equal(firstPage.hasNextPage(), true);
      const all: string[] = [];
      for await (const file of client.files.list({ purpose: 'vision', limit: 1, order: 'desc' })) all.push(file.id);
      assert.deepEqual(all, [...ids].reverse());
    });

    test('delete removes the file and its content; a deleted file is 404', async () => {
      const created = await client.files.create({ file: await toFile(Buffer.from('bye'), 'bye.txt'), purpose: 'user_data' });
      const deleted = await client.files.delete(created.id);
      assert.deepEqual(deleted, { id: created.id, object: 'file', deleted: true });
      await assert.rejects(client.files.retrieve(created.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(client.files.content(created.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
    });

    test('files belong to a workspace: another workspace cannot see them', async () => {
      const created = await client.files.create({ file: await toFile(Buffer.from('mine'), 'mine.txt'), purpose: 'user_data' });
      const workspace = await app.http.post('/v1/workspaces').set('x-gw-api-key', app.adminKey).send({ name: 'other' });
      assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
      const key = await app.http.post('/v1/api-keys/workspace/service').set('x-gw-api-key', app.adminKey).send({ name: 'k', workspace_id: workspace.body.id, scopes: ['completions.write'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const other = new OpenAI({ apiKey: key.body.key, baseURL: `${app.url}/v1`, maxRetries: 0 });
      await assert.rejects(other.files.retrieve(created.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      assert.equal((await other.files.list()).data.length, 0);
    });
  });
}

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await probe()); i++) {
    assert.ok(i < 400, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
