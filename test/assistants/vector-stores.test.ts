/**
 * Vector stores with the official `openai` client: files uploaded to gw, stores created over them,
 * ingestion in the worker room (chunked, embedded through gw's own embeddings path by the store's
 * `@slug/model`, over a loopback embedder whose vectors are bags of words), search ranking the
 * right file first, attribute filters, batches, failures recorded on the file, the index kept
 * across a restart, and bad input answered 400 / unknown ids 404 in the spec's error shape.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeWordEmbedder } from '../helpers/fake-word-embedder.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sharedDb } from '../helpers/test-db.js';

type ApiError = InstanceType<typeof OpenAI.APIError>;

const ANIMALS = 'The red fox jumps over the lazy dog. Foxes hunt mice in the meadow at night and dogs sleep by the barn.';
const BAKING = 'To bake bread, knead the flour dough with yeast and water, let it rise, then bake the loaf in a hot oven.';
const MODEL = '@embedder/text-embedding-3-small';

for (const engine of fullEngines()) describe(`vector stores (${engine.name})`, () => {
  let db: Awaited<ReturnType<typeof sharedDb>>;
  let embedder: RecordingServer;
  let app: TestApp;
  let client: OpenAI;
  /** Moves gw's clock (expiry). */
  let offsetMs = 0;
  const env = { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'), GW_JOBS_POLL_MS: '100' };

  const start = async () => {
    app = await startTestApp({ engine, env, sharedDb: db, now: () => Date.now() + offsetMs });
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  };

  before(async () => {
    embedder = await startFakeWordEmbedder();
    db = await sharedDb(engine.databaseUrl);
    await start();
    const saved = await app.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'Embedder', slug: 'embedder', ai_provider_id: 'openai', key: 'sk-embed', configurations: { custom_host: `${embedder.url}/v1` } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
  });
  after(async () => {
    await app?.close();
    await db?.drop();
    await embedder?.close();
  });

  const upload = async (name: string, text: string | Buffer) => client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' });

  async function settled(vectorStoreId: string): Promise<OpenAI.VectorStores.VectorStore> {
    for (let i = 0; i < 200; i++) {
      const store = await client.vectorStores.retrieve(vectorStoreId);
      if (store.status !== 'in_progress') return store;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('ingestion did not settle');
  }

  async function rejected(promise: Promise<unknown>): Promise<ApiError> {
    const error = await promise.then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
    const body = (error as ApiError).error as { code: string; message: string; param?: string; type: string };
    assert.equal(typeof body.message, 'string');
    assert.ok('type' in body && 'code' in body, 'the spec error shape');
    assert.ok(!('param' in body) || typeof body.param === 'string', 'param is a string when present');
    return error as ApiError;
  }

  let storeId: string;
  let animalsId: string;
  let bakingId: string;

  it('creates a store over uploaded files, ingests them in the background through the embedding model, and searches them', async () => {
    animalsId = (await upload('animals.txt', ANIMALS)).id;
    bakingId = (await upload('baking.txt', BAKING)).id;
    const before = embedder.received.length;
    const created = await client.vectorStores.create({ name: 'Notes', file_ids: [animalsId, bakingId], metadata: { 'x-gw-embedding-model': MODEL } });
    storeId = created.id;
    assert.equal(created.object, 'vector_store');
    assert.match(created.id, /^vs_/);
    assert.equal(created.file_counts.total, 2);
    const store = await settled(created.id);
    assert.equal(store.status, 'completed');
    assert.deepEqual(store.file_counts, { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });
    assert.equal(store.usage_bytes, Buffer.byteLength(ANIMALS) + Buffer.byteLength(BAKING));
    const upstream = embedder.received.slice(before);
    assert.equal(upstream.length, 2, 'one embeddings call per file');
    assert.equal(upstream[0]!.body!.model, 'text-embedding-3-small');
    assert.equal(upstream[0]!.headers.authorization, 'Bearer sk-embed');

    const files = await client.vectorStores.files.list(store.id);
    assert.deepEqual(new Set(files.data.map((file) => file.id)), new Set([animalsId, bakingId]));
    for (const file of files.data) {
      assert.equal(file.status, 'completed');
      assert.deepEqual(file.chunking_strategy, { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } });
    }

    const results = await client.vectorStores.search(store.id, { query: 'how do I bake a loaf of bread in the oven', max_num_results: 2 });
    assert.equal(results.data.length, 2);
    assert.equal(results.data[0]!.file_id, bakingId);
    assert.equal(results.data[0]!.filename, 'baking.txt');
    assert.deepEqual(results.data[0]!.content, [{ type: 'text', text: BAKING }]);
    assert.ok(results.data[0]!.score > results.data[1]!.score, 'ranked by score');
    assert.ok(results.data[0]!.score <= 1 && results.data[1]!.score >= 0);
    const foxes = await client.vectorStores.search(store.id, { query: 'red fox, lazy dog, mice in the meadow', max_num_results: 1 });
    assert.deepEqual(foxes.data.map((hit) => hit.file_id), [animalsId]);
  });

  it('static chunking splits files into overlapping chunks; attributes filter search; files are listed, fetched and removed', async () => {
    const words = Array.from({ length: 250 }, (_, i) => `w${i}`).join(' ');
    const longId = (await upload('long.txt', words)).id;
    const attached = await client.vectorStores.files.createAndPoll(storeId, {
      file_id: longId,
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 } },
      attributes: { kind: 'numbers', year: 2024 },
    }, { pollIntervalMs: 50 });
    assert.equal(attached.status, 'completed');
    const hits = await client.vectorStores.search(storeId, { query: 'w0 w1 w2 w120 w249', max_num_results: 50, filters: { type: 'eq', key: 'kind', value: 'numbers' } });
    // 250 words in chunks of 100 starting every 50 words: 0-99, 50-149, 100-199, 150-249.
    assert.equal(hits.data.length, 4);
    for (const hit of hits.data) {
      assert.equal(hit.file_id, longId);
      assert.deepEqual(hit.attributes, { kind: 'numbers', year: 2024 });
      assert.ok(hit.content[0]!.text.split(' ').length <= 100);
    }
    const texts = hits.data.map((hit) => hit.content[0]!.text);
    assert.ok(texts.some((text) => text.startsWith('w0 ') && text.endsWith(' w99')));
    assert.ok(texts.some((text) => text.startsWith('w150 ') && text.endsWith(' w249')));
    const none = await client.vectorStores.search(storeId, { query: 'w1', filters: { type: 'and', filters: [{ type: 'eq', key: 'kind', value: 'numbers' }, { type: 'lt', key: 'year', value: 2000 }] } });
    assert.equal(none.data.length, 0);

    assert.equal((await client.vectorStores.files.retrieve(longId, { vector_store_id: storeId })).status, 'completed');
    assert.deepEqual(await client.vectorStores.files.delete(longId, { vector_store_id: storeId }), { id: longId, object: 'vector_store.file.deleted', deleted: true });
    const after = await client.vectorStores.search(storeId, { query: 'w1 w2 w3', max_num_results: 50 });
    assert.ok(after.data.every((hit) => hit.file_id !== longId), 'a removed file is no longer searched');
  });

  it('deleting a file through /v1/files removes it from every store of the workspace: listing, search and its stored chunks', async () => {
    const goneId = (await upload('gone.txt', 'zebra quartz xylophone')).id;
    const attached = await client.vectorStores.files.createAndPoll(storeId, { file_id: goneId }, { pollIntervalMs: 50 });
    assert.equal(attached.status, 'completed');
    const chunksOf = () => app.services.db('vector_store_chunks').where({ vector_store_id: storeId, file_id: goneId }).count({ n: '*' }).first();
    assert.equal(Number((await chunksOf())!.n), 1);
    assert.equal((await client.files.delete(goneId)).deleted, true);
    const listed = await client.vectorStores.files.list(storeId);
    assert.ok(listed.data.every((file) => file.id !== goneId), 'the store no longer lists the deleted file');
    const hits = await client.vectorStores.search(storeId, { query: 'zebra quartz xylophone', max_num_results: 50 });
    assert.ok(hits.data.every((hit) => hit.file_id !== goneId), 'its content no longer answers a search');
    assert.equal(Number((await chunksOf())!.n), 0, 'its chunks are not kept');
  });

  it('file batches: created, polled, listed; a file that cannot be read or embedded fails with last_error', async () => {
    const good = (await upload('good.txt', 'plain text about rivers and lakes')).id;
    const binary = (await upload('image.bin', Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]))).id;
    const explosive = (await upload('boom.txt', 'this text will EXPLODE the embedder')).id;
    const batch = await client.vectorStores.fileBatches.createAndPoll(storeId, { file_ids: [good, binary, explosive] }, { pollIntervalMs: 50 });
    assert.equal(batch.object, 'vector_store.files_batch');
    assert.equal(batch.status, 'completed');
    assert.deepEqual(batch.file_counts, { in_progress: 0, completed: 1, failed: 2, cancelled: 0, total: 3 });
    const listed = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: storeId });
    assert.equal(listed.data.length, 3);
    const failed = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: storeId, filter: 'failed' });
    const errors = Object.fromEntries(failed.data.map((file) => [file.id, file.last_error?.code]));
    assert.deepEqual(errors, { [binary]: 'unsupported_file', [explosive]: 'server_error' });
    assert.deepEqual((await client.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: storeId })).file_counts, batch.file_counts);
    const cancelled = await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: storeId });
    assert.equal(cancelled.status, 'cancelled');
  });

  it('lists stores with the OpenAI envelope, modifies and deletes them', async () => {
    const second = await client.vectorStores.create({ name: 'Second', metadata: { 'x-gw-embedding-model': MODEL }, expires_after: { anchor: 'last_active_at', days: 7 } });
    assert.equal(second.status, 'completed');
    assert.equal(second.expires_at, second.last_active_at! + 7 * 86_400);
    const page = await client.vectorStores.list({ limit: 1 });
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0]!.id, second.id, 'newest first');
    assert.equal(page.has_more, true);
    const next = await client.vectorStores.list({ limit: 1, after: second.id });
    assert.equal(next.data[0]!.id, storeId);
    offsetMs = 8 * 86_400_000;
    try {
      assert.equal((await client.vectorStores.retrieve(second.id)).status, 'expired');
      const expired = await rejected(client.vectorStores.search(second.id, { query: 'anything' }));
      assert.equal(expired.status, 400);
      assert.equal(expired.code, 'vector_store_expired');
    } finally {
      offsetMs = 0;
    }
    const renamed = await client.vectorStores.update(second.id, { name: 'Renamed', expires_after: null });
    assert.equal(renamed.name, 'Renamed');
    assert.equal(renamed.expires_at, null);
    assert.deepEqual(await client.vectorStores.delete(second.id), { id: second.id, object: 'vector_store.deleted', deleted: true });
    assert.equal((await rejected(client.vectorStores.retrieve(second.id))).status, 404);
  });

  it('bad input answers 400 naming the field; unknown ids answer 404', async () => {
    const missing = await rejected(client.vectorStores.create({ name: 'No model' }));
    assert.equal(missing.status, 400);
    assert.equal(missing.param, 'metadata.x-gw-embedding-model');
    const format = await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': 'text-embedding-3-small' } }));
    assert.equal(format.status, 400);
    const unknownProvider = await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': '@nope/m' } }));
    assert.equal(unknownProvider.code, 'provider_not_found');
    const overlap = await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': MODEL }, chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } } }));
    assert.equal(overlap.status, 400);
    assert.equal(overlap.param, 'chunking_strategy.static.chunk_overlap_tokens');
    const small = await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': MODEL }, chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 99, chunk_overlap_tokens: 0 } } }));
    assert.equal(small.status, 400);
    const days = await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': MODEL }, expires_after: { anchor: 'last_active_at', days: 366 } }));
    assert.equal(days.status, 400);
    assert.equal((await rejected(client.vectorStores.search(storeId, { query: 'x', max_num_results: 51 }))).status, 400);
    const fixed = await rejected(client.vectorStores.update(storeId, { metadata: { 'x-gw-embedding-model': '@embedder/other' } }));
    assert.equal(fixed.param, 'metadata.x-gw-embedding-model');

    assert.equal((await rejected(client.vectorStores.retrieve('vs_nope'))).status, 404);
    assert.equal((await rejected(client.vectorStores.search('vs_nope', { query: 'x' }))).status, 404);
    assert.equal((await rejected(client.vectorStores.create({ metadata: { 'x-gw-embedding-model': MODEL }, file_ids: ['file-nope'] }))).status, 404);
    assert.equal((await rejected(client.vectorStores.files.create(storeId, { file_id: 'file-nope' }))).status, 404);
    assert.equal((await rejected(client.vectorStores.files.retrieve('file-nope', { vector_store_id: storeId }))).status, 404);
    assert.equal((await rejected(client.vectorStores.fileBatches.retrieve('vsfb_nope', { vector_store_id: storeId }))).status, 404);
  });

  it('another workspace sees none of them', async () => {
    const workspace = await app.http.post('/v1/workspaces').set('x-gw-api-key', ADMIN_KEY).send({ name: `VS other ${randomBytes(3).toString('hex')}` });
    assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
    const key = await app.http
      .post('/v1/api-keys/workspace/service')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'other', workspace_id: workspace.body.id, scopes: ['assistants.read', 'assistants.write', 'completions.write'] });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const other = new OpenAI({ apiKey: key.body.key, baseURL: `${app.url}/v1`, maxRetries: 0 });
    assert.equal((await rejected(other.vectorStores.retrieve(storeId))).status, 404);
    assert.equal((await other.vectorStores.list()).data.length, 0);
  });

  it("another workspace's assistant or thread naming this workspace's store, file or saved provider is refused when written, as a run would find none", async () => {
    const workspace = await app.http.post('/v1/workspaces').set('x-gw-api-key', ADMIN_KEY).send({ name: `VS refs ${randomBytes(3).toString('hex')}` });
    const key = await app.http
      .post('/v1/api-keys/workspace/service')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'refs', workspace_id: workspace.body.id, scopes: ['assistants.read', 'assistants.write', 'threads.read', 'threads.write'] });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const other = new OpenAI({ apiKey: key.body.key, baseURL: `${app.url}/v1`, maxRetries: 0 });
    const status = async (promise: Promise<unknown>) => (await rejected(promise)).status;

    assert.equal(await status(other.beta.assistants.create({ model: 'gpt-4o', tools: [{ type: 'file_search' }], tool_resources: { file_search: { vector_store_ids: [storeId] } } })), 404);
    assert.equal(await status(other.beta.assistants.create({ model: 'gpt-4o', tools: [{ type: 'code_interpreter' }], tool_resources: { code_interpreter: { file_ids: [bakingId] } } })), 404);
    const byModel = await rejected(other.beta.assistants.create({ model: '@embedder/gpt-4o' }));
    assert.equal(byModel.status, 400);
    assert.deepEqual([(byModel.error as { code?: string }).code, (byModel.error as { param?: string }).param], ['provider_not_found', 'model']);
    const byMetadata = await rejected(other.beta.assistants.create({ model: 'gpt-4o', metadata: { 'x-gw-provider': '@embedder' } }));
    assert.equal(byMetadata.status, 400);

    const assistant = await other.beta.assistants.create({ model: 'gpt-4o' });
    assert.equal(await status(other.beta.assistants.update(assistant.id, { tool_resources: { file_search: { vector_store_ids: [storeId] } } })), 404);
    assert.equal(await status(other.beta.assistants.update(assistant.id, { model: '@embedder/gpt-4o' })), 400);
    assert.deepEqual((await other.beta.assistants.retrieve(assistant.id)).tool_resources, {});
    const thread = await other.beta.threads.create({});
    assert.equal(await status(other.beta.threads.update(thread.id, { tool_resources: { file_search: { vector_store_ids: [storeId] } } })), 404);

    // The owner's workspace may name them all.
    const own = await client.beta.assistants.create({ model: MODEL, tools: [{ type: 'file_search' }], tool_resources: { file_search: { vector_store_ids: [storeId] } } });
    assert.deepEqual(own.tool_resources?.file_search?.vector_store_ids, [storeId]);
  });

  it('the index survives a restart: a new instance on the same store searches without embedding the files again', async () => {
    await app.close();
    await start();
    const before = embedder.received.length;
    const results = await client.vectorStores.search(storeId, { query: 'bake bread dough', max_num_results: 1 });
    assert.equal(results.data[0]!.file_id, bakingId);
    assert.equal(embedder.received.length, before + 1, 'only the query is embedded');
  });
});
