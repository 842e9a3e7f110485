/**
 * The pass-through picks a saved provider from the body's model (`@slug/model`) as chat does,
 * JSON and multipart alike, sends the model upstream without its prefix, and logs the model with
 * the tokens and cost of answers that report usage (images, transcriptions), settling budgets with
 * them. Driven by the official `openai` client given nothing but gw's URL and key.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import busboy from 'busboy';
import OpenAI, { toFile } from 'openai';
import { costNanoUsd, NANO_USD_PER_USD, priceOf } from '../../gateway/limits/pricing/cost.js';
import { READ_LIMIT } from '../../gateway/proxy/answer-usage.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { fullEngines } from '../helpers/engines.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const IMAGE_USAGE = { input_tokens: 50, output_tokens: 4160, total_tokens: 4210, input_tokens_details: { text_tokens: 50, image_tokens: 0 } };
const TRANSCRIPTION_USAGE = { type: 'tokens', input_tokens: 120, output_tokens: 30, total_tokens: 150, input_token_details: { audio_tokens: 118, text_tokens: 2 } };

const CHAT_USAGE = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  /** A JSON body, or a multipart body's fields with each file's size. */
  fields: Record<string, unknown>;
  bytes: number;
}

/** Reads a multipart body as the upstream would: fields by name, files by size. */
function readMultipart(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, file) => {
      let size = 0;
      file.on('data', (chunk: Buffer) => (size += chunk.length));
      file.on('end', () => (fields[name] = { size }));
    });
    parser.on('close', () => resolve(fields));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

/** A loopback upstream speaking OpenAI's images, transcriptions and moderations: answers with usage where OpenAI's do. */
async function startMediaUpstream() {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const multipart = /^multipart\//.test(req.headers['content-type'] ?? '');
    const body = multipart
      ? readMultipart(req)
      : new Promise<Record<string, unknown>>((resolve) => {
          const parts: Buffer[] = [];
          req.on('data', (chunk: Buffer) => parts.push(chunk));
          req.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>));
        });
    void body.then((fields) => {
      const url = req.url ?? '/';
      received.push({ url, headers: req.headers, fields, bytes });
      const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url === '/v1/images/generations' || url === '/v1/images/edits') {
        // A GPT image answer: the image as base64 (big), then its usage.
        return json({ created: 1_700_000_000, data: [{ b64_json: Buffer.alloc(200_000, 1).toString('base64') }], usage: IMAGE_USAGE });
      }
      if (url === '/v1/audio/transcriptions') return json({ text: 'hello there', usage: TRANSCRIPTION_USAGE });
      // Any other JSON answer: usage in OpenAI's naming, in Anthropic's, or after more than gw reads.
      if (url === '/v1/custom/openai') return json({ model: 'gpt-4o-2024-08-06', usage: CHAT_USAGE });
      if (url === '/v1/custom/anthropic') return json({ type: 'message', usage: { input_tokens: 12, output_tokens: 8 } });
      if (url === '/v1/custom/huge') return json({ padding: 'x'.repeat(READ_LIMIT + 10), usage: CHAT_USAGE });
      if (url === '/v1/moderations') {
        return json({ id: 'modr-1', model: 'omni-moderation-2024-09-26', results: [{ flagged: false, categories: {}, category_scores: {}, category_applied_input_types: {} }] });
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no ${url}`, type: 'invalid_request_error', code: 'unknown_url' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const dollars = (model: string, usage: { input_tokens: number; output_tokens: number }) =>
  costNanoUsd(priceOf('openai', model), { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens }) / NANO_USD_PER_USD;

for (const engine of fullEngines()) {
  describe(`the pass-through selects a saved provider by model (${engine.name})`, () => {
    let upstream: Awaited<ReturnType<typeof startMediaUpstream>>;
    let app: TestApp;
    let client: OpenAI;
    const logs: RequestLogEntry[] = [];
    const lastProxyLog = async () => {
      await app.services.requestLogs.flush();
      return logs.filter((entry) => entry.endpoint === 'proxy').at(-1)!;
    };

    before(async () => {
      upstream = await startMediaUpstream();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      recordLogsInto(app, logs);
      const saved = await app.http
        .post('/v1/providers')
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ name: 'Media', slug: 'media', ai_provider_id: 'openai', key: 'sk-media', custom_host: `${upstream.origin}/v1` });
      assert.equal(saved.status, 201, saved.text);
      // No gw header at all: base URL and the gw key, as a new user's client.
      client = new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
    });
    after(async () => {
      await app?.close();
      await upstream?.close();
    });

    it('moderations.create with model "@media/..." reaches the saved provider with the bare model; the log names it', async () => {
      const moderation = await client.moderations.create({ model: '@media/omni-moderation-latest', input: 'is this fine?' });
      assert.equal(moderation.results[0]!.flagged, false);
      const sent = upstream.received.at(-1)!;
      assert.equal(sent.url, '/v1/moderations');
      assert.equal(sent.headers.authorization, 'Bearer sk-media', 'the saved key goes upstream, not the gw key');
      assert.deepEqual(sent.fields, { model: 'omni-moderation-latest', input: 'is this fine?' });
      assert.equal(Number(sent.headers['content-length']), sent.bytes);
      const entry = await lastProxyLog();
      assert.equal(entry.status, 200);
      assert.equal(entry.provider, 'openai');
      assert.equal(entry.model, 'omni-moderation-latest');
      assert.equal(entry.total_tokens, 0, 'moderation answers carry no usage');
    });

    it('images.generate logs the model, the usage tokens and their cost', async () => {
      const image = await client.images.generate({ model: '@media/gpt-image-1', prompt: 'a lighthouse at dusk' });
      assert.deepEqual(image.usage, IMAGE_USAGE);
      assert.equal(upstream.received.at(-1)!.fields.model, 'gpt-image-1');
      const entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-image-1');
      assert.equal(entry.prompt_tokens, 50);
      assert.equal(entry.completion_tokens, 4160);
      assert.equal(entry.total_tokens, 4210);
      assert.ok(entry.cost > 0);
      assert.equal(entry.cost, dollars('gpt-image-1', IMAGE_USAGE));
      assert.ok((entry.response_body as { bytes: number }).bytes > 200_000, 'the whole image came back');
    });

    it('audio.transcriptions.create (multipart): the model field is rewritten whatever its place, the file arrives whole, usage is logged', async () => {
      const audio = Buffer.alloc(300_000, 3);
      // The file first (the client keeps the order given): gw holds the body until the model has passed.
      const fileFirst = await client.audio.transcriptions.create({ file: await toFile(audio, 'clip.wav', { type: 'audio/wav' }), model: '@media/gpt-4o-transcribe' });
      assert.equal(fileFirst.text, 'hello there');
      let sent = upstream.received.at(-1)!;
      assert.equal(sent.url, '/v1/audio/transcriptions');
      assert.equal(sent.fields.model, 'gpt-4o-transcribe');
      assert.deepEqual(sent.fields.file, { size: audio.length });
      assert.equal(Number(sent.headers['content-length']), sent.bytes, 'the length sent matches the rewritten body');
      assert.equal(sent.headers.authorization, 'Bearer sk-media');
      let entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-4o-transcribe');
      assert.equal(entry.total_tokens, 150);
      assert.equal(entry.cost, dollars('gpt-4o-transcribe', TRANSCRIPTION_USAGE));

      // The model first: only the head is held, the file streams on.
      const modelFirst = await client.audio.transcriptions.create({ model: '@media/gpt-4o-mini-transcribe', file: await toFile(audio, 'clip.wav', { type: 'audio/wav' }) });
      assert.equal(modelFirst.text, 'hello there');
      sent = upstream.received.at(-1)!;
      assert.equal(sent.fields.model, 'gpt-4o-mini-transcribe');
      assert.deepEqual(sent.fields.file, { size: audio.length });
      assert.equal(Number(sent.headers['content-length']), sent.bytes);
      entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-4o-mini-transcribe');
      assert.equal(entry.cost, dollars('gpt-4o-mini-transcribe', TRANSCRIPTION_USAGE));
    });

    it('images.edit (multipart) and a provider chosen by header: the model and usage are logged, a model after the file included', async () => {
      const viaHeader = new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-provider': '@media' } });
      // 150 kB of image before the model: past what gw peeks at when a header picks the provider, so it streams unheld.
      const edited = await viaHeader.images.edit({ image: await toFile(Buffer.alloc(150_000, 9), 'in.png', { type: 'image/png' }), prompt: 'add a boat', model: 'gpt-image-1' });
      assert.deepEqual(edited.usage, IMAGE_USAGE);
      const sent = upstream.received.at(-1)!;
      assert.equal(sent.url, '/v1/images/edits');
      assert.equal(sent.fields.model, 'gpt-image-1');
      assert.deepEqual(sent.fields.image, { size: 150_000 });
      const entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-image-1');
      assert.equal(entry.total_tokens, 4210);
    });

    it('any other JSON pass-through: the body\'s model, the answer\'s usage in OpenAI\'s or Anthropic\'s naming, priced; a huge answer is not read past its limit', async () => {
      const send = (path: string, model: string) =>
        app.http.post(`/v1/custom/${path}`).set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': '@media' }).send({ model, input: 'hi' }).expect(200);
      await send('openai', 'gpt-4o');
      let entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-4o', 'the body\'s model, not the answer\'s');
      assert.deepEqual([entry.prompt_tokens, entry.completion_tokens, entry.total_tokens], [20, 5, 25]);
      assert.ok(entry.cost > 0);
      assert.equal(entry.cost, costNanoUsd(priceOf('openai', 'gpt-4o'), CHAT_USAGE) / NANO_USD_PER_USD);

      await send('anthropic', 'gpt-4o-mini');
      entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-4o-mini');
      assert.deepEqual([entry.prompt_tokens, entry.completion_tokens, entry.total_tokens], [12, 8, 20]);

      const huge = await send('huge', 'gpt-4o');
      assert.ok(huge.text.length > READ_LIMIT, 'the client got the whole answer');
      entry = await lastProxyLog();
      assert.equal(entry.model, 'gpt-4o');
      assert.equal(entry.total_tokens, 0, 'usage past the read limit is not looked for');
    });

    it('a body without a @slug/ model and no provider header finds no route (404), JSON or multipart', async () => {
      const calls = upstream.received.length;
      const json = await client.moderations.create({ model: 'omni-moderation-latest', input: 'x' }).then(
        () => assert.fail('no provider was selected'),
        (error: unknown) => error,
      );
      assert.ok(json instanceof OpenAI.NotFoundError, String(json));
      assert.equal((json.error as { code: string }).code, 'route_not_found');
      const multipart = await client.audio.transcriptions.create({ file: await toFile(Buffer.alloc(1000), 'a.wav'), model: 'whisper-1' }).then(
        () => assert.fail('no provider was selected'),
        (error: unknown) => error,
      );
      assert.ok(multipart instanceof OpenAI.NotFoundError, String(multipart));
      const unknown = await client.moderations.create({ model: '@nobody/omni-moderation-latest', input: 'x' }).then(
        () => assert.fail('no such saved provider'),
        (error: unknown) => error,
      );
      assert.ok(unknown instanceof OpenAI.BadRequestError, String(unknown));
      assert.equal((unknown.error as { code: string }).code, 'provider_not_found');
      assert.equal(upstream.received.length, calls, 'nothing went upstream');
    });

    it('a token budget counts the tokens an answer reports: over it, the next call is refused', async () => {
      const policy = await app.http
        .post('/v2/policies/usage-limits')
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ name: 'image tokens', type: 'tokens', credit_limit: 5000, conditions: [{ key: 'metadata.suite', value: 'pass-through-model' }] });
      assert.equal(policy.status, 201, policy.text);
      const budgeted = new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-metadata': JSON.stringify({ suite: 'pass-through-model' }) } });
      await budgeted.images.generate({ model: '@media/gpt-image-1', prompt: 'one' });
      const entities = await app.http.get(`/v2/policies/usage-limits/${policy.body.id}/entities`).set({ 'x-gw-api-key': app.adminKey });
      assert.equal(entities.body.data[0].usage, 4210);
      await budgeted.images.generate({ model: '@media/gpt-image-1', prompt: 'two' });
      const calls = upstream.received.length;
      await assert.rejects(budgeted.images.generate({ model: '@media/gpt-image-1', prompt: 'three' }), (error: unknown) => error instanceof OpenAI.RateLimitError);
      assert.equal(upstream.received.length, calls, 'the refused call never went upstream');
    });
  });
}
