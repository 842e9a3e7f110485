/**
 * The /v1/* pass-through, driven by the official `openai` client where it has the endpoint: paths
 * gw has no route for reach a fake upstream on loopback as they were sent (JSON, a multipart
 * upload, a binary answer), with the provider's own auth header, streamed both ways, logged,
 * rate-limited, behind opted-in webhook guardrails and the address guard; and x-gw-models-endpoint.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import type { RequestLogEntry } from '../../core/request-log.js';
import { fullEngines } from '../helpers/engines.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A loopback upstream speaking OpenAI's images, audio and models wire formats, plus an echo path that answers each chunk as it arrives. */
async function startUpstream() {
  const seen: Seen[] = [];
  const hooks: Array<Record<string, unknown>> = [];
  let verdict = true;
  const SPEECH = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url === '/v1/echo') {
      // Streams both ways: each chunk goes back before the request has ended.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      req.on('data', (chunk: Buffer) => res.write(chunk));
      req.on('end', () => res.end());
      seen.push({ method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.alloc(0) });
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      if (url === '/hook') {
        hooks.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verdict }));
        return;
      }
      seen.push({ method: req.method ?? 'GET', url, headers: req.headers, body });
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'x-upstream': 'yes' }).end(JSON.stringify(value));
      const path = url.split('?')[0]!;
      if (path.endsWith('/images/generations')) return json(200, { created: 1_700_000_000, data: [{ url: 'https://images.example/cat.png', revised_prompt: 'a cat' }] });
      if (path.endsWith('/audio/transcriptions')) return json(200, { text: `heard ${body.length} bytes` });
      if (path.endsWith('/audio/speech')) {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(SPEECH.subarray(0, 1000));
        res.end(SPEECH.subarray(1000));
        return;
      }
      if (path === '/v1/alt-models') return json(200, { object: 'list', data: [{ id: 'listed-elsewhere', object: 'model', created: 5, owned_by: 'me' }] });
      if (path === '/v1/models') return json(200, { object: 'list', data: [{ id: 'default-list', object: 'model', created: 6, owned_by: 'me' }] });
      if (path === '/v1/messages/count_tokens') return json(200, { input_tokens: 12 });
      json(404, { error: { message: `no ${path}`, type: 'invalid_request_error', code: 'unknown_url' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    hooks,
    SPEECH,
    setVerdict(value: boolean) {
      verdict = value;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

for (const engine of fullEngines()) {
  describe(`the /v1/* pass-through (${engine.name})`, () => {
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    let app: TestApp;
    const logs: RequestLogEntry[] = [];

    before(async () => {
      upstream = await startUpstream();
      app = await startTestApp({
        engine,
        env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' },
        upstreamOriginOverrides: { 'azure-openai': upstream.origin },
      });
      recordLogsInto(app, logs);
    });
    after(async () => {
      await app?.close();
      await upstream?.close();
    });

    const gwHeaders = (extra: Record<string, string> = {}) => ({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': `${upstream.origin}/v1`, ...extra });
    const client = (extra: Record<string, string> = {}) => new OpenAI({ apiKey: 'sk-upstream', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: gwHeaders(extra) });
    const proxyLogs = () => logs.filter((entry) => entry.endpoint === 'proxy');

    it('images.generate reaches the provider as sent, with its key, and the answer comes back; one log row', async () => {
      const before = proxyLogs().length;
      const image = await client().images.generate({ model: 'dall-e-3', prompt: 'a cat' });
      assert.equal(image.data?.[0]?.url, 'https://images.example/cat.png');
      const sent = upstream.seen.at(-1)!;
      assert.equal(sent.method, 'POST');
      assert.equal(sent.url, '/v1/images/generations');
      assert.equal(sent.headers.authorization, 'Bearer sk-upstream');
      assert.equal(sent.headers['x-gw-api-key'], undefined, 'gw headers stay in gw');
      assert.deepEqual(JSON.parse(sent.body.toString('utf8')), { model: 'dall-e-3', prompt: 'a cat' });

      await app.services.requestLogs.flush();
      const entry = proxyLogs()[before]!;
      assert.equal(entry.status, 200);
      assert.equal(entry.provider, 'openai');
      assert.deepEqual(entry.request_body, { method: 'POST', path: '/images/generations', content_type: 'application/json', bytes: sent.body.length });
      assert.equal(typeof entry.latency_ms, 'number');
      const page = await app.services.store.requestLogs.list({ organisation_id: app.boot.organisationId, trace_id: entry.trace_id }, { limit: 5 });
      assert.equal(page.data.length, 1, 'the row is in the store');
      assert.equal(page.data[0]!.endpoint, 'proxy');
    });

    it('audio.transcriptions.create uploads multipart unchanged, and audio.speech.create answers binary', async () => {
      const wav = Buffer.alloc(50_000, 7);
      const transcript = await client().audio.transcriptions.create({ file: await toFile(wav, 'clip.wav', { type: 'audio/wav' }), model: 'whisper-1' });
      const sent = upstream.seen.at(-1)!;
      assert.match(sent.headers['content-type'] ?? '', /^multipart\/form-data; boundary=/);
      assert.ok(sent.body.includes(wav), 'the file bytes arrived whole');
      assert.equal(transcript.text, `heard ${sent.body.length} bytes`);

      const speech = await client().audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello' });
      assert.equal(speech.headers.get('content-type'), 'audio/mpeg');
      assert.equal(speech.headers.get('x-gw-provider'), 'openai');
      assert.ok(Buffer.from(await speech.arrayBuffer()).equals(upstream.SPEECH));
    });

    // Buffering either body would hang this exchange: the test's timeout turns that into a failure.
    it('streams both ways: the answer to the first chunk arrives while the request is still open', { timeout: 60_000 }, async () => {
      const url = new URL(`${app.url}/v1/echo`);
      const received = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', headers: { ...gwHeaders({ authorization: 'Bearer sk-upstream' }), 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            // Only once the first chunk came back is the second one sent: buffering either way would hang here.
            if (text === 'first;') req.end('second;');
          });
          res.on('end', () => resolve(text));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.write('first;');
      });
      assert.equal(received, 'first;second;');
    });

    it('translates the credential to the provider own header: Anthropic x-api-key, Azure api-key on the deployment path', async () => {
      const anthropic = await app.http
        .post('/v1/messages/count_tokens')
        .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'anthropic', 'x-gw-custom-host': upstream.origin, authorization: 'Bearer sk-ant' })
        .send({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(anthropic.status, 200, anthropic.text);
      assert.deepEqual(anthropic.body, { input_tokens: 12 });
      let sent = upstream.seen.at(-1)!;
      assert.equal(sent.url, '/v1/messages/count_tokens');
      assert.equal(sent.headers['x-api-key'], 'sk-ant');
      assert.equal(sent.headers.authorization, undefined);
      assert.equal(sent.headers['anthropic-version'], '2023-06-01');

      const azure = await app.http
        .post('/v1/images/generations')
        .set({
          'x-gw-api-key': app.adminKey,
          'x-gw-provider': 'azure-openai',
          authorization: 'Bearer az-key',
          'x-gw-cloud1-resource-name': 'res',
          'x-gw-cloud1-deployment-id': 'dalle',
          'x-gw-cloud1-api-version': '2024-10-21',
        })
        .send({ prompt: 'a cat' });
      assert.equal(azure.status, 200, azure.text);
      sent = upstream.seen.at(-1)!;
      assert.equal(sent.url, '/openai/deployments/dalle/images/generations?api-version=2024-10-21');
      assert.equal(sent.headers['api-key'], 'az-key');
      assert.equal(sent.headers.authorization, undefined);
    });

    it('uses a saved provider key (the gw key then rides in Authorization), and Google x-goog-api-key', async () => {
      const saved = await app.http
        .post('/v1/providers')
        .set({ 'x-gw-api-key': app.adminKey })
        .send({ name: 'Proxy OpenAI', slug: 'proxy-openai', ai_provider_id: 'openai', key: 'sk-saved', configurations: { custom_host: `${upstream.origin}/v1` } });
      assert.equal(saved.status, 201, saved.text);
      const viaSaved = new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-provider': '@proxy-openai' } });
      const image = await viaSaved.images.generate({ model: 'dall-e-3', prompt: 'saved' });
      assert.equal(image.data?.[0]?.url, 'https://images.example/cat.png');
      assert.equal(upstream.seen.at(-1)!.headers.authorization, 'Bearer sk-saved', 'the saved key, not the gw key, goes upstream');

      const google = await app.http
        .post('/v1/models/gemini-2.5-flash:countTokens')
        .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'google', 'x-gw-custom-host': upstream.origin, authorization: 'Bearer goog-key' })
        .send({ contents: [] });
      assert.equal(google.status, 404, 'the fake does not serve it; what matters is what it saw');
      const sent = upstream.seen.at(-1)!;
      assert.equal(sent.url, '/v1beta/models/gemini-2.5-flash:countTokens');
      assert.equal(sent.headers['x-goog-api-key'], 'goog-key');
      assert.equal(sent.headers.authorization, undefined);
    });

    it('passes upstream errors through with their status and body', async () => {
      const response = await app.http.get('/v1/fine_tuning/jobs?limit=2').set({ ...gwHeaders(), authorization: 'Bearer sk' });
      assert.equal(response.status, 404);
      assert.equal(response.body.error.code, 'unknown_url');
      assert.equal(upstream.seen.at(-1)!.url, '/v1/fine_tuning/jobs?limit=2');
    });

    it('leaves real routes alone: a known path with another method is 405, no provider signal is 404, dot segments are 400', async () => {
      const calls = upstream.seen.length;
      const wrongMethod = await app.http.get('/v1/chat/completions').set({ ...gwHeaders(), authorization: 'Bearer sk' });
      assert.equal(wrongMethod.status, 405);
      const unsignalled = await app.http.post('/v1/images/generations').set({ 'x-gw-api-key': app.adminKey }).send({ prompt: 'x' });
      assert.equal(unsignalled.status, 404);
      assert.equal(unsignalled.body.error.code, 'route_not_found');
      const climbing = await app.http.get('/v1/%2e%2e/admin').set({ ...gwHeaders(), authorization: 'Bearer sk' });
      assert.equal(climbing.status, 400);
      assert.equal(climbing.body.error.code, 'invalid_pass_through_path');
      const noKey = await app.http.post('/v1/images/generations').set({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${upstream.origin}/v1`, authorization: 'Bearer sk' }).send({});
      assert.equal(noKey.status, 401);
      assert.equal(upstream.seen.length, calls, 'no upstream call');
    });

    it('cohere: a call goes below the API version its embeddings use (v2, or the custom host\'s own), with its key as a bearer token', async () => {
      const rerank = { model: 'rerank-v3.5', query: 'capital of France', documents: ['Paris', 'Berlin'] };
      const current = await app.http.post('/v1/rerank').set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'cohere', 'x-gw-custom-host': upstream.origin, authorization: 'Bearer co-key' }).send(rerank);
      assert.equal(current.status, 404, 'the fake has no rerank: its own 404 comes back as sent');
      assert.equal(current.body.error.code, 'unknown_url');
      const sent = upstream.seen.at(-1)!;
      assert.equal(sent.url, '/v2/rerank');
      assert.equal(sent.headers.authorization, 'Bearer co-key');
      assert.deepEqual(JSON.parse(sent.body.toString('utf8')), rerank);
      await app.http.post('/v1/rerank').set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'cohere', 'x-gw-custom-host': `${upstream.origin}/v1`, authorization: 'Bearer co-key' }).send(rerank);
      assert.equal(upstream.seen.at(-1)!.url, '/v1/rerank');
    });

    it('refuses a custom host on an untrusted private address before any connection', async () => {
      const calls = upstream.seen.length;
      const port = new URL(upstream.origin).port;
      const response = await app.http.post('/v1/images/generations').set({ ...gwHeaders({ 'x-gw-custom-host': `http://127.0.0.2:${port}/v1` }), authorization: 'Bearer sk' }).send({ prompt: 'x' });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error.param, 'x-gw-custom-host');
      assert.equal(upstream.seen.length, calls);
    });

    it('counts each call against rate limits: the call over the limit is 429 and never sent', async () => {
      const policy = await app.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': app.adminKey })
        // A day window: a minute one made the test flake when its calls straddled a minute boundary.
        .send({ name: 'proxy per day', type: 'requests', unit: 'day', value: 2, conditions: [{ key: 'metadata.suite', value: 'pass-through' }] });
      assert.equal(policy.status, 201, policy.text);
      const limited = client({ 'x-gw-metadata': JSON.stringify({ suite: 'pass-through' }) });
      await limited.images.generate({ model: 'dall-e-3', prompt: 'one' });
      await limited.images.generate({ model: 'dall-e-3', prompt: 'two' });
      const calls = upstream.seen.length;
      await assert.rejects(limited.images.generate({ model: 'dall-e-3', prompt: 'three' }), (error: unknown) => error instanceof OpenAI.RateLimitError);
      assert.equal(upstream.seen.length, calls);
      assert.equal(proxyLogs().at(-1)!.status, 429);
    });

    it('runs webhook guardrails only with executeOnProxy, sends method, path and content type, and a deny refuses (logged)', async () => {
      const guardrail = (executeOnProxy: boolean) =>
        JSON.stringify({
          provider: 'openai',
          api_key: 'sk-upstream',
          custom_host: `${upstream.origin}/v1`,
          input_guardrails: [{ name: 'hook', checks: [{ id: 'default.webhook', parameters: { webhookURL: `${upstream.origin}/hook`, executeOnProxy } }], actions: { deny: true } }],
        });
      const viaConfig = (executeOnProxy: boolean) =>
        new OpenAI({ apiKey: app.adminKey, baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-config': guardrail(executeOnProxy) } });

      upstream.setVerdict(false);
      const hooksBefore = upstream.hooks.length;
      const passed = await viaConfig(false).images.generate({ model: 'dall-e-3', prompt: 'not judged' });
      assert.equal(passed.data?.[0]?.url, 'https://images.example/cat.png');
      assert.equal(upstream.hooks.length, hooksBefore, 'a webhook without executeOnProxy is not called');

      const calls = upstream.seen.length;
      await assert.rejects(viaConfig(true).images.generate({ model: 'dall-e-3', prompt: 'judged' }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 446);
      assert.equal(upstream.seen.length, calls, 'the denied call is never sent');
      const event = upstream.hooks.at(-1)!;
      assert.equal(event.requestType, 'proxy');
      assert.equal(event.request, null, 'the body is not read');
      assert.equal(event.method, 'POST');
      assert.equal(event.path, '/images/generations');
      assert.equal(event.contentType, 'application/json');
      const refused = proxyLogs().at(-1)!;
      assert.equal(refused.status, 446);
      assert.equal(refused.error?.code, 'guardrail_denied');
      assert.equal((refused.guardrail_results as Array<{ verdict: boolean }>)[0]!.verdict, false);

      upstream.setVerdict(true);
      const allowed = await viaConfig(true).images.generate({ model: 'dall-e-3', prompt: 'judged and passed' });
      assert.equal(allowed.data?.[0]?.url, 'https://images.example/cat.png');
    });

    it('x-gw-models-endpoint fetches the provider model list from the path it names', async () => {
      const models = client();
      const usual = await models.models.list();
      assert.deepEqual(usual.data.map((model) => model.id), ['default-list']);

      const elsewhere = await client({ 'x-gw-models-endpoint': '/alt-models' }).models.list();
      assert.deepEqual(elsewhere.data.map((model) => model.id), ['listed-elsewhere']);
      const sent = upstream.seen.at(-1)!;
      assert.equal(sent.url, '/v1/alt-models');
      assert.equal(sent.headers.authorization, 'Bearer sk-upstream');

      const climbing = await app.http.get('/v1/models').set({ ...gwHeaders({ 'x-gw-models-endpoint': '/../models' }), authorization: 'Bearer sk' });
      assert.equal(climbing.status, 400);
      assert.equal(climbing.body.error.param, 'x-gw-models-endpoint');
      const absolute = await app.http.get('/v1/models').set({ ...gwHeaders({ 'x-gw-models-endpoint': 'http://169.254.169.254/' }), authorization: 'Bearer sk' });
      assert.equal(absolute.status, 400);
    });
  });
}
