import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { assertEndpointRolledUp } from '../logs/rollup-check.js';

type Batch = OpenAI.Batches.Batch;
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'expired']);

function chatLine(customId: string, text: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }, ...extra });
}

/** A base64 embedding's little-endian float32 values. */
function floatsOf(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
}

async function waitFor(client: OpenAI, id: string, done: (batch: Batch) => boolean = (b) => TERMINAL.has(b.status)): Promise<Batch> {
  for (let i = 0; i < 2000; i += 1) {
    const batch = await client.batches.retrieve(id);
    if (done(batch)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`batch ${id} did not get there`);
}

// Result lines are read field by field in the assertions below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ResultLine = Record<string, any>;

async function fileLines(client: OpenAI, id: string | null | undefined): Promise<ResultLine[]> {
  if (!id) return [];
  const text = await (await client.files.content(id)).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResultLine);
}

for (const engine of fullEngines()) {
  describe(`batches (${engine.name})`, () => {
    let gw: GatewayApp;
    let client: OpenAI;
    before(async () => {
      gw = await startGatewayApp({ engine, env: { GW_JOBS_POLL_MS: '50' } });
      client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-metadata': JSON.stringify({ source: 'batch-test' }) });
    });
    after(() => gw.close());

    async function upload(lines: string[]) {
      return client.files.create({ file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'input.jsonl'), purpose: 'batch' });
    }

    test('batches.create runs chat lines through the pipeline; output and error files account for every line', async () => {
      const input = await upload([
        chatLine('a', 'first'),
        chatLine('b', 'second'),
        'not json',
        chatLine('c', 'third', { url: '/v1/embeddings' }),
        chatLine('a', 'duplicate'),
        chatLine('d', 'fourth', { body: { model: 'gpt-4o-mini', messages: 'not a list' } }),
      ]);
      const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { team: 'x' } });
      assert.match(created.id, /^batch_/);
      assert.equal(created.object, 'batch');
      assert.equal(created.status, 'validating');
      assert.deepEqual(created.metadata, { team: 'x' });

      const batch = await waitFor(client, created.id);
      assert.equal(batch.status, 'completed');
      assert.deepEqual(batch.request_counts, { total: 6, completed: 2, failed: 4 });

      const output = await fileLines(client, batch.output_file_id);
      assert.deepEqual(
        output.map((line) => line.custom_id),
        ['a', 'b'],
      );
      assert.equal(output[0]!.response.status_code, 200);
      assert.equal(output[0]!.response.body.object, 'chat.completion');
      assert.equal(output[0]!.response.body.choices[0].message.content, 'You said: first');
      assert.equal(output[0]!.error, null);

      const errors = await fileLines(client, batch.error_file_id);
      assert.equal(errors.length, 4);
      const byCode = errors.map((line) => line.error?.code ?? line.response?.body?.error?.code);
      assert.deepEqual(byCode, ['invalid_json_line', 'mismatched_url', 'duplicate_custom_id', byCode[3]]);
      // The line the spec refuses is answered as the endpoint would answer it: 400 naming the field.
      assert.equal(errors[3]!.custom_id, 'd');
      assert.equal(errors[3]!.response.status_code, 400);
      assert.equal(errors[3]!.response.body.error.param, 'messages');

      // Each line that ran was a gateway request: logged with the batch creator's headers.
      const upstreamChats = gw.fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
      assert.equal(upstreamChats.length, 2);
      assert.ok(gw.logs.some((entry) => (entry as { metadata?: Record<string, string> }).metadata?.source === 'batch-test'));
      await gw.app.services.requestLogs.flush();
      await assertEndpointRolledUp(gw.app.services.db, 'chat.completions', 'batch lines');

      // The output endpoint streams the output file.
      const outputText = await gw.app.http.get(`/v1/batches/${batch.id}/output`).set('x-gw-api-key', gw.app.adminKey).buffer(true).parse((res, cb) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => cb(null, data));
      });
      assert.equal(outputText.status, 200);
      assert.equal(String(outputText.body).trim().split('\n').length, 2);

      const listed = await client.batches.list();
      assert.ok(listed.data.some((item) => item.id === batch.id));
    });

    test('embeddings and legacy completions lines run through their own paths, logged as such', async () => {
      const embeddings = await upload([
        JSON.stringify({ custom_id: 'e1', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['hi', 'there'] } }),
        JSON.stringify({ custom_id: 'e2', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'b64', encoding_format: 'base64' } }),
        JSON.stringify({ custom_id: 'e3', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small' } }),
      ]);
      const embedded = await waitFor(client, (await client.batches.create({ input_file_id: embeddings.id, endpoint: '/v1/embeddings', completion_window: '24h' })).id);
      assert.deepEqual(embedded.request_counts, { total: 3, completed: 2, failed: 1 });
      const [first, second] = await fileLines(client, embedded.output_file_id);
      assert.equal(first!.response.body.object, 'list');
      assert.deepEqual(first!.response.body.data.map((item: { embedding: number[] }) => item.embedding), [[2, 0.5, -0.5], [5, 1.5, -0.5]]);
      assert.deepEqual(floatsOf(second!.response.body.data[0].embedding), [3, 0.5, -0.5]);
      const [refused] = await fileLines(client, embedded.error_file_id);
      assert.equal(refused!.response.body.error.param, 'input');
      assert.ok(gw.fake.requests.some((request) => request.path.endsWith('/embeddings')));

      const completions = await upload([JSON.stringify({ custom_id: 'c1', method: 'POST', url: '/v1/completions', body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Say this', stream: true } })]);
      const completed = await waitFor(client, (await client.batches.create({ input_file_id: completions.id, endpoint: '/v1/completions', completion_window: '24h' })).id);
      assert.deepEqual(completed.request_counts, { total: 1, completed: 1, failed: 0 });
      const [line] = await fileLines(client, completed.output_file_id);
      assert.equal(line!.response.body.object, 'text_completion');
      assert.equal(line!.response.body.choices[0].text, ' echo of Say this');
      assert.ok(gw.logs.some((entry) => entry.endpoint === 'embeddings') && gw.logs.some((entry) => entry.endpoint === 'completions'));
    });

    test('responses lines run through the Responses path: a Response in the output, a bad line in the errors', async () => {
      const input = await upload([
        JSON.stringify({ custom_id: 'r1', method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', input: 'Say this', stream: true } }),
        JSON.stringify({ custom_id: 'r2', method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', input: 42 } }),
      ]);
      const batch = await waitFor(client, (await client.batches.create({ input_file_id: input.id, endpoint: '/v1/responses', completion_window: '24h' })).id);
      assert.deepEqual(batch.request_counts, { total: 2, completed: 1, failed: 1 });
      const [line] = await fileLines(client, batch.output_file_id);
      assert.equal(line!.custom_id, 'r1');
      assert.equal(line!.response.body.object, 'response');
      assert.equal(line!.response.body.status, 'completed');
      assert.match(line!.response.body.output[0].content[0].text, /Say this/);
      const [refused] = await fileLines(client, batch.error_file_id);
      assert.equal(refused!.custom_id, 'r2');
      assert.equal(refused!.response.status_code, 400);
      assert.ok(gw.logs.some((entry) => entry.endpoint === 'responses'));
    });

    test('a line the provider rate-limits waits and runs again; it is neither lost nor failed', async () => {
      gw.fake.next({ kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '1' } });
      const input = await upload([chatLine('r1', 'one'), chatLine('r2', 'two'), chatLine('r3', 'three')]);
      const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const batch = await waitFor(client, created.id);
      assert.deepEqual(batch.request_counts, { total: 3, completed: 3, failed: 0 });
      const output = await fileLines(client, batch.output_file_id);
      assert.deepEqual(output.map((line) => line.custom_id).sort(), ['r1', 'r2', 'r3']);
    });

    test('a spent budget fails the lines past it, as the direct requests would fail', async () => {
      const workspace = await gw.app.http.post('/v1/workspaces').set('x-gw-api-key', gw.app.adminKey).send({ name: 'capped', usage_limits: { type: 'requests', credit_limit: 2 } });
      assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
      const key = await gw.app.http.post('/v1/api-keys/workspace/service').set('x-gw-api-key', gw.app.adminKey).send({ name: 'k', workspace_id: workspace.body.id, scopes: ['completions.write'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const capped = new OpenAI({ apiKey: 'sk-upstream', baseURL: `${gw.app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': key.body.key, 'x-gw-provider': 'openai' } });
      const input = await capped.files.create({ file: await toFile(Buffer.from([1, 2, 3, 4].map((i) => chatLine(`u${i}`, `u${i}`)).join('\n')), 'capped.jsonl'), purpose: 'batch' });
      const created = await capped.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const batch = await waitFor(capped, created.id);
      assert.deepEqual(batch.request_counts, { total: 4, completed: 2, failed: 2 });
      const errors = await fileLines(capped, batch.error_file_id);
      assert.deepEqual(
        errors.map((line) => [line.response.status_code, line.response.body.error.code]),
        [
          [429, 'usage_limit_exceeded'],
          [429, 'usage_limit_exceeded'],
        ],
      );
    });

    /** Waits for the first line's call to reach the fake, which takes the queued hang (else a later test's call would). */
    async function upstreamReached(sent: number): Promise<void> {
      for (let i = 0; i < 1000 && gw.fake.requests.length === sent; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(gw.fake.requests.length > sent, 'a line reached the upstream');
    }

    test('cancel stops a batch: lines not started are not run, and the files hold what ran', async () => {
      // The first line hangs until its x-gw-request-timeout; the cancel lands meanwhile.
      const sent = gw.fake.requests.length;
      gw.fake.next({ kind: 'hang' });
      const lines = Array.from({ length: 40 }, (_, i) => chatLine(`k${i}`, `n${i}`));
      const input = await upload(lines);
      const slow = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-request-timeout': '1500' });
      const created = await slow.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await waitFor(client, created.id, (b) => b.status === 'in_progress');
      await upstreamReached(sent);
      const cancelling = await client.batches.cancel(created.id);
      assert.ok(['cancelling', 'cancelled'].includes(cancelling.status));
      const batch = await waitFor(client, created.id);
      assert.equal(batch.status, 'cancelled');
      const ran = batch.request_counts!.completed + batch.request_counts!.failed;
      assert.ok(ran < 40, `ran ${ran}`);
      const output = await fileLines(client, batch.output_file_id);
      const errors = await fileLines(client, batch.error_file_id);
      assert.equal(output.length + errors.length, ran);
      await assert.rejects(client.batches.cancel(created.id).then(() => client.batches.cancel('batch_missing')), (error: unknown) => error instanceof OpenAI.NotFoundError);
    });

    test('a batch past its completion window expires: lines not run fail with batch_expired', async () => {
      const sent = gw.fake.requests.length;
      gw.fake.next({ kind: 'hang' });
      const input = await upload(Array.from({ length: 40 }, (_, i) => chatLine(`x${i}`, `x${i}`)));
      const slow = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-request-timeout': '1500' });
      const created = await slow.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await waitFor(client, created.id, (b) => b.status === 'in_progress');
      await upstreamReached(sent);
      // The window closes while the first lines are still running.
      await gw.app.services.db('batches').where({ id: created.id }).update({ expires_at: 0 });
      const batch = await waitFor(client, created.id);
      assert.equal(batch.status, 'expired');
      assert.ok(batch.expired_at);
      assert.equal(batch.request_counts!.total, 40);
      assert.equal(batch.request_counts!.completed + batch.request_counts!.failed, 40);
      const errors = await fileLines(client, batch.error_file_id);
      const expired = errors.filter((line) => line.error?.code === 'batch_expired');
      assert.ok(expired.length > 0);
      assert.equal((await fileLines(client, batch.output_file_id)).length + errors.length, 40);
    });

    test('PUT /v2/batches/{id} sets internal_output_file_id, which the output endpoint then serves', async () => {
      const input = await upload([chatLine('v1', 'x')]);
      const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await waitFor(client, created.id);
      const own = await client.files.create({ file: await toFile(Buffer.from('{"custom_id":"v1","from":"provider"}\n'), 'out.jsonl'), purpose: 'batch' });
      const put = await gw.app.http.put(`/v2/batches/${created.id}`).set('x-gw-api-key', gw.app.adminKey).send({ internal_output_file_id: own.id });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.internal_output_file_id, own.id);
      const output = await gw.app.http.get(`/v1/batches/${created.id}/output`).set('x-gw-api-key', gw.app.adminKey).buffer(true).parse((res, cb) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => cb(null, data));
      });
      assert.match(String(output.body), /"from":"provider"/);
      const missing = await gw.app.http.put(`/v2/batches/${created.id}`).set('x-gw-api-key', gw.app.adminKey).send({ internal_output_file_id: 'file-nope' });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'internal_output_file_id');
    });

    test('create refuses a file that is missing or not uploaded for batches', async () => {
      const userFile = await client.files.create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'user_data' });
      await assert.rejects(client.batches.create({ input_file_id: userFile.id, endpoint: '/v1/chat/completions', completion_window: '24h' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal((error.error as { param?: string }).param, 'input_file_id');
        return true;
      });
      await assert.rejects(client.batches.create({ input_file_id: 'file-missing', endpoint: '/v1/chat/completions', completion_window: '24h' }), (error: unknown) => error instanceof OpenAI.BadRequestError);
    });
  });
}
