import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import type { RequestLogEntry } from '../../core/request-log.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeBatchApi, type FakeBatchApi } from '../helpers/fake-openai-batches.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app.js';
import { sharedDb } from '../helpers/test-db.js';

type Batch = OpenAI.Batches.Batch & { batch_mode?: string; provider_batch_id?: string | null };
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'expired']);
const NATIVE = { 'x-gw-provider': 'openai', 'x-gw-batch-mode': 'native' };

function chatLine(customId: string, text: string) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] } });
}

async function waitFor(client: OpenAI, id: string, done: (batch: Batch) => boolean): Promise<Batch> {
  for (let i = 0; i < 2000; i += 1) {
    const batch = (await client.batches.retrieve(id)) as Batch;
    if (done(batch)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`batch ${id} did not get there`);
}

const ended = (batch: Batch) => TERMINAL.has(batch.status);
const handedOver = (batch: Batch) => Boolean(batch.provider_batch_id) || ended(batch);

function appOptions(fake: FakeBatchApi, engine: TestAppOptions['engine']): TestAppOptions {
  return {
    engine,
    env: { GW_JOBS_POLL_MS: '20', GW_BATCH_POLL_MS: '10', GW_BATCH_POLL_MAX_MS: '40', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' },
    upstreamOriginOverrides: { openai: fake.origin, 'azure-openai': fake.origin, groq: fake.origin },
  };
}

/** The official client against gw: the admin key, the provider key in Authorization, and gw headers. */
function gwClient(app: TestApp, headers: Record<string, string>): OpenAI {
  return new OpenAI({ apiKey: 'sk-provider', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': app.adminKey, ...headers } });
}

async function upload(client: OpenAI, lines: string[]) {
  return client.files.create({ file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'input.jsonl'), purpose: 'batch' });
}

async function contentOf(client: OpenAI, id: string | null | undefined): Promise<Buffer> {
  assert.ok(id, 'a file id');
  return Buffer.from(await (await client.files.content(id)).arrayBuffer());
}

describe('the fake batch API speaks the wire the official client reads', () => {
  let fake: FakeBatchApi;
  before(async () => (fake = await startFakeBatchApi()));
  after(() => fake.close());

  test('files, batches, progress, completion, cancel and errors', async () => {
    const client = new OpenAI({ apiKey: 'sk-provider', baseURL: `${fake.origin}/v1`, maxRetries: 0 });
    const input = await upload(client, [chatLine('a', 'hi'), chatLine('b', 'fail')]);
    assert.equal(input.object, 'file');
    assert.equal(input.purpose, 'batch');
    assert.equal((await client.files.retrieve(input.id)).bytes, input.bytes);
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { k: 'v' } });
    assert.equal(batch.status, 'validating');
    fake.progress(batch.id, 'in_progress', { total: 2, completed: 1, failed: 0 });
    assert.deepEqual((await client.batches.retrieve(batch.id)).request_counts, { total: 2, completed: 1, failed: 0 });
    const files = fake.complete(batch.id);
    const done = await client.batches.retrieve(batch.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.request_counts, { total: 2, completed: 1, failed: 1 });
    assert.deepEqual(await contentOf(client, done.output_file_id), files.output);
    assert.deepEqual(await contentOf(client, done.error_file_id), files.errors);

    const other = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    assert.equal((await client.batches.cancel(other.id)).status, 'cancelling');
    fake.settleCancel(other.id);
    assert.equal((await client.batches.retrieve(other.id)).status, 'cancelled');

    await assert.rejects(new OpenAI({ apiKey: 'wrong', baseURL: `${fake.origin}/v1`, maxRetries: 0 }).batches.retrieve(batch.id), OpenAI.AuthenticationError);
    await assert.rejects(client.batches.retrieve('batch_missing'), OpenAI.NotFoundError);
  });
});

for (const engine of fullEngines()) {
  describe(`native batches (${engine.name})`, () => {
    let fake: FakeBatchApi;
    let app: TestApp;
    let client: OpenAI;
    const logs: RequestLogEntry[] = [];
    before(async () => {
      fake = await startFakeBatchApi();
      app = await startTestApp(appOptions(fake, engine));
      recordLogsInto(app, logs);
      client = gwClient(app, NATIVE);
    });
    after(async () => {
      await app.close();
      await fake.close();
    });

    test('a native batch goes to the provider: counts mirrored as they advance, its files copied byte for byte, no line through gw', async () => {
      const lines = [chatLine('a', 'first'), chatLine('b', 'fail'), chatLine('c', 'third')];
      const input = await upload(client, lines);
      const created = (await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { team: 'x' } })) as Batch;
      assert.equal(created.status, 'validating');
      assert.equal(created.batch_mode, 'native');

      const handed = await waitFor(client, created.id, handedOver);
      const remote = fake.batches.get(handed.provider_batch_id!)!;
      assert.ok(remote, 'the provider has the batch');
      assert.equal(remote.endpoint, '/v1/chat/completions');
      assert.equal(remote.completion_window, '24h');
      assert.deepEqual(remote.metadata, { team: 'x', gw_batch_id: created.id });
      const uploaded = fake.files.get(remote.input_file_id)!;
      assert.equal(uploaded.purpose, 'batch');
      assert.equal(uploaded.content.toString(), lines.join('\n') + '\n');

      // A provider that is busy once is polled again, not given up on.
      fake.failNext(`/batches/${remote.id}`, 503, 'busy');
      fake.progress(remote.id, 'in_progress', { total: 3, completed: 1, failed: 0 });
      const running = await waitFor(client, created.id, (batch) => batch.request_counts?.completed === 1);
      assert.equal(running.status, 'in_progress');
      assert.deepEqual(running.request_counts, { total: 3, completed: 1, failed: 0 });

      const files = fake.complete(remote.id);
      const done = await waitFor(client, created.id, ended);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
      assert.deepEqual(await contentOf(client, done.output_file_id), files.output);
      assert.deepEqual(await contentOf(client, done.error_file_id), files.errors);
      const served = await app.http.get(`/v1/batches/${done.id}/output`).set('x-gw-api-key', app.adminKey).buffer(true).parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
      assert.deepEqual(served.body, files.output);

      // The provider ran the lines: nothing went through gw's chat path, and each provider call was logged.
      assert.ok(!fake.requests.some((request) => request.path.includes('/chat/completions')));
      assert.ok(!logs.some((entry) => entry.endpoint === 'chat.completions'));
      const calls = logs.filter((entry) => entry.endpoint === 'proxy').map((entry) => `${(entry.request_body as { method: string }).method} ${(entry.request_body as { path: string }).path} ${entry.status}`);
      assert.ok(calls.includes('POST /files 200'));
      assert.ok(calls.includes('POST /batches 200'));
      assert.ok(calls.includes(`GET /batches/${remote.id} 503`));
      assert.ok(calls.includes(`GET /files/${remote.output_file_id as string}/content 200`));
    });

    test('cancel is forwarded to the provider; the batch ends cancelled when the provider says so', async () => {
      const input = await upload(client, [chatLine('a', 'one')]);
      const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const handed = await waitFor(client, created.id, handedOver);
      const cancelling = await client.batches.cancel(created.id);
      assert.equal(cancelling.status, 'cancelling');
      assert.equal(fake.batches.get(handed.provider_batch_id!)!.status, 'cancelling');
      assert.ok(fake.requests.some((request) => request.method === 'POST' && request.path === `/v1/batches/${handed.provider_batch_id}/cancel`));
      fake.settleCancel(handed.provider_batch_id!);
      const done = await waitFor(client, created.id, ended);
      assert.equal(done.status, 'cancelled');
      assert.equal(done.output_file_id, null);
    });

    test('a provider error fails the batch with the provider status and message', async () => {
      const input = await upload(client, [chatLine('a', 'one')]);
      fake.failNext('/batches', 400, 'The endpoint is not supported for this model');
      const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const done = await waitFor(client, created.id, ended);
      assert.equal(done.status, 'failed');
      assert.match(done.errors!.data![0]!.message!, /openai answered 400 to POST \/batches: The endpoint is not supported for this model/);
    });

    test('a saved provider asks for native batches in configurations.batch_mode; azure-openai gets its own URLs and endpoint name', async () => {
      const admin = { 'x-gw-api-key': app.adminKey };
      const slug = `native-${randomBytes(3).toString('hex')}`;
      const saved = await app.http.post('/v1/providers').set(admin).send({ name: slug, slug, ai_provider_id: 'openai', key: 'sk-provider', configurations: { batch_mode: 'native' } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const bySaved = gwClient(app, { 'x-gw-provider': `@${slug}` });
      const input = await upload(bySaved, [chatLine('a', 'one')]);
      const created = (await bySaved.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })) as Batch;
      assert.equal(created.batch_mode, 'native');
      const handed = await waitFor(bySaved, created.id, handedOver);
      fake.complete(handed.provider_batch_id!);
      assert.equal((await waitFor(bySaved, created.id, ended)).status, 'completed');

      // x-gw-batch-mode: gateway overrides the saved provider's choice.
      const overridden = (await gwClient(app, { 'x-gw-provider': `@${slug}`, 'x-gw-batch-mode': 'gateway' }).batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })) as Batch;
      assert.equal(overridden.batch_mode, 'gateway');

      const refused = await app.http.post('/v1/providers').set(admin).send({ name: `${slug}-x`, ai_provider_id: 'openai', key: 'sk-provider', configurations: { batch_mode: 'sometimes' } });
      assert.equal(refused.status, 400);
      const noBatchApi = await app.http.post('/v1/providers').set(admin).send({ name: `${slug}-y`, ai_provider_id: 'anthropic', key: 'sk-provider', configurations: { batch_mode: 'native' } });
      assert.equal(noBatchApi.status, 400);
      assert.equal(noBatchApi.body.error.param, 'configurations.batch_mode');

      const azure = gwClient(app, { 'x-gw-provider': 'azure-openai', 'x-gw-batch-mode': 'native', 'x-gw-cloud1-resource-name': 'res', 'x-gw-cloud1-deployment-id': 'dep', 'x-gw-cloud1-api-version': '2024-10-21' });
      const azureBatch = await azure.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const azureHanded = await waitFor(azure, azureBatch.id, handedOver);
      assert.equal(fake.batches.get(azureHanded.provider_batch_id!)!.endpoint, '/chat/completions');
      const upload2 = fake.requests.find((request) => request.method === 'POST' && request.path.startsWith('/openai/files'));
      assert.equal(upload2?.path, '/openai/files?api-version=2024-10-21');
      assert.equal(upload2?.headers['api-key'], 'sk-provider');
      fake.complete(azureHanded.provider_batch_id!);
      assert.equal((await waitFor(azure, azureBatch.id, ended)).status, 'completed');
    });

    test('a provider without a native batch API, or a config, is refused with 400; no batch is made', async () => {
      const input = await upload(client, [chatLine('a', 'one')]);
      const before = (await client.batches.list({ limit: 100 })).data.length;
      const anthropic = gwClient(app, { 'x-gw-provider': 'anthropic', 'x-gw-batch-mode': 'native' });
      const error = await anthropic.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal((error.error as { code?: string }).code, 'native_batch_unsupported');
      assert.equal(error.param, 'x-gw-batch-mode');

      const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-provider' }] });
      const viaConfig = await gwClient(app, { 'x-gw-config': config, 'x-gw-batch-mode': 'native' })
        .batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
        .catch((caught: unknown) => caught);
      assert.ok(viaConfig instanceof OpenAI.BadRequestError);
      assert.equal((viaConfig.error as { code?: string }).code, 'native_batch_needs_one_provider');
      assert.equal((await client.batches.list({ limit: 100 })).data.length, before);
    });
  });

  describe(`native batches across a restart (${engine.name})`, () => {
    test('a restarted gw resumes polling the provider batch it made; no second upload or provider batch', async () => {
      const fake = await startFakeBatchApi();
      const db = await sharedDb(engine.databaseUrl);
      const options = appOptions(fake, engine);
      options.env = { ...options.env, GW_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
      try {
        const first = await startTestApp({ ...options, sharedDb: db });
        let created: Batch;
        let providerBatchId: string;
        try {
          const client = gwClient(first, NATIVE);
          const input = await upload(client, [chatLine('a', 'one'), chatLine('b', 'two')]);
          created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
          providerBatchId = (await waitFor(client, created.id, handedOver)).provider_batch_id!;
          fake.progress(providerBatchId, 'in_progress', { total: 2, completed: 1, failed: 0 });
          await waitFor(client, created.id, (batch) => batch.request_counts?.completed === 1);
        } finally {
          await first.close();
        }
        const files = fake.complete(providerBatchId);
        const second = await startTestApp({ ...options, sharedDb: db });
        try {
          const client = gwClient(second, NATIVE);
          const done = await waitFor(client, created.id, ended);
          assert.equal(done.status, 'completed');
          assert.equal(done.provider_batch_id, providerBatchId);
          assert.deepEqual(done.request_counts, { total: 2, completed: 2, failed: 0 });
          assert.deepEqual(await contentOf(client, done.output_file_id), files.output);
        } finally {
          await second.close();
        }
        const posts = (path: string) => fake.requests.filter((request) => request.method === 'POST' && request.path === path).length;
        assert.equal(posts('/v1/files'), 1);
        assert.equal(posts('/v1/batches'), 1);
      } finally {
        await db.drop();
        await fake.close();
      }
    });
  });
}
