/**
 * The /v1/* pass-through to bedrock and vertex-ai. Bedrock: the official Bedrock runtime client
 * (InvokeModel, InvokeModelWithResponseStream) talks to gw, and gw re-signs each call for a fake
 * runtime that checks the signature twice: independently (sigv4-check.ts) and by recomputing it
 * with the AWS SDK's signer; header keys with a session token and a saved provider's assumed role
 * both sign; a body over the limit is 413 and never sent. Vertex AI: the access token gw obtained
 * through Google workload identity federation (or the caller's) reaches a fake aiplatform host at
 * the mapped path.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Sha256 } from '@aws-crypto/sha256-js';
import { BedrockRuntimeClient, InvokeModelCommand, InvokeModelWithResponseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { RequestLogEntry } from '../../core/request-log.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeBedrock, type BedrockReceived, type FakeBedrock } from '../helpers/fake-bedrock.js';
import { startFakeAws, type FakeAws } from '../helpers/fake-secret-managers.js';
import { startFakeTokenEndpoints, writeGoogleExternalAccount, type FakeTokenEndpoints } from '../helpers/fake-token-endpoints.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const STATIC_KEYS = { id: 'AKIASTATIC00000001', secret: 'static-secret-key-for-pass-through', session: 'session-token-from-the-caller' };
const BASE_KEYS = { id: 'AKIABASE0000000002', secret: 'base-secret-key-for-assume-role' };
const ROLE = 'arn:aws:iam::123456789012:role/gw-pass-through';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const CLAUDE_ANSWER = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'invoked' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } };
const STREAM_TEXTS = ['{"type":"message_start"}', '{"type":"content_block_delta","delta":{"text":"hi"}}', '{"type":"message_stop"}'];

/** Recomputes the request's Authorization with the AWS SDK's own signer from what the fake received. */
async function sdkAuthorization(received: BedrockReceived, secretAccessKey: string): Promise<string> {
  const authorization = String(received.headers.authorization);
  const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
  const [rawPath = '/', rawQuery = ''] = received.rawUrl.split('?');
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const amzDate = String(received.headers['x-amz-date']);
  const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`);
  const [hostname, port] = String(received.headers.host).split(':');
  const signer = new SignatureV4({
    service: received.signature.service!,
    region: received.signature.region!,
    sha256: Sha256,
    credentials: { accessKeyId: received.signature.accessKeyId!, secretAccessKey, sessionToken: received.headers['x-amz-security-token'] as string | undefined },
  });
  const headers = Object.fromEntries(signedNames.map((name) => [name, String(received.headers[name])]));
  const signed = await signer.sign({ method: received.method, protocol: 'http:', hostname: hostname!, port: Number(port), path: rawPath, query, headers, body: received.raw }, { signingDate });
  return signed.headers.authorization!;
}

for (const engine of fullEngines()) {
  describe(`the /v1/* pass-through to bedrock and vertex-ai (${engine.name})`, () => {
    let app: TestApp;
    let bedrock: FakeBedrock;
    let aws: FakeAws;
    let tokens: FakeTokenEndpoints;
    let aiplatform: RecordingServer;
    let dir: string;
    const logs: RequestLogEntry[] = [];
    const secrets = new Map<string, string>([[STATIC_KEYS.id, STATIC_KEYS.secret]]);
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const proxyLogs = () => logs.filter((entry) => entry.endpoint === 'proxy');

    async function savedProvider(name: string, body: Record<string, unknown>): Promise<string> {
      const response = await app.http.post('/v1/providers').set(admin()).send({ name, ...body });
      assert.equal(response.status, 201, response.text);
      return (response.body as { slug: string }).slug;
    }

    /** The official Bedrock runtime client pointed at gw: the gw key and the saved provider ride in headers; its own signature stays in gw. */
    function bedrockClient(slug: string): BedrockRuntimeClient {
      const client = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: `${app.url}/v1`,
        credentials: { accessKeyId: 'AKIACALLER', secretAccessKey: 'caller-secret-never-used' },
        maxAttempts: 1,
        // gw speaks HTTP/1.1; the client's default handler is HTTP/2.
        requestHandler: new NodeHttpHandler(),
      });
      client.middlewareStack.add(
        (next) => (args) => {
          const request = args.request as { headers: Record<string, string> };
          request.headers['x-gw-api-key'] = app.adminKey;
          request.headers['x-gw-provider'] = `@${slug}`;
          return next(args);
        },
        { step: 'build', name: 'gwHeaders' },
      );
      return client;
    }

    before(async () => {
      aws = await startFakeAws();
      aws.keys.set(BASE_KEYS.id, BASE_KEYS.secret);
      aws.roles.set(ROLE, undefined);
      bedrock = await startFakeBedrock({
        // Static keys, and whatever keys STS issued.
        credentials: new Proxy({} as Record<string, string>, { get: (_, id) => secrets.get(String(id)) ?? aws.keys.get(String(id)) }),
        script: (received) =>
          received.operation === 'invoke-with-response-stream'
            ? { kind: 'stream', chunkBytes: 7, frames: STREAM_TEXTS.map((text) => ({ event: 'chunk', payload: { bytes: Buffer.from(text).toString('base64') } })) }
            : { kind: 'invoke', body: CLAUDE_ANSWER },
      });
      tokens = await startFakeTokenEndpoints();
      aiplatform = await startRecordingServer((request, res) => {
        if (request.path.endsWith(':countTokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 4, totalBillableCharacters: 10 }));
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: `no ${request.path}`, status: 'NOT_FOUND' } }));
      });
      dir = mkdtempSync(path.join(tmpdir(), 'gw-pass-clouds-'));
      const googleFile = writeGoogleExternalAccount(dir, tokens);
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GOOGLE_APPLICATION_CREDENTIALS: googleFile } });
      recordLogsInto(app, logs);
    });
    after(async () => {
      await app?.close();
      await Promise.all([bedrock?.close(), aws?.close(), tokens?.close(), aiplatform?.close()]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('bedrock InvokeModel through the official client: re-signed with the assumed role keys over the body, the JSON answer back, logged', async () => {
      const slug = await savedProvider('bedrock pass role', {
        ai_provider_id: 'bedrock',
        configurations: {
          aws_region: 'us-west-2',
          aws_access_key_id: BASE_KEYS.id,
          aws_secret_access_key: BASE_KEYS.secret,
          aws_role_arn: ROLE,
          aws_sts_endpoint: aws.url,
          custom_host: bedrock.url,
        },
      });
      const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
      const answer = await bedrockClient(slug).send(new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(body) }));
      assert.deepEqual(JSON.parse(Buffer.from(answer.body).toString('utf8')), CLAUDE_ANSWER);

      const received = bedrock.received.at(-1)!;
      assert.equal(received.signature.valid, true, received.signature.reason);
      assert.equal(received.operation, 'invoke');
      assert.equal(received.modelId, MODEL);
      assert.deepEqual(received.body, body);
      assert.match(received.signature.accessKeyId!, /^ASIA/, 'the role keys, not the base keys or the caller own');
      assert.equal(received.signature.region, 'us-west-2');
      assert.equal(received.signature.service, 'bedrock');
      assert.match(String(received.headers['x-amz-security-token']), /^session-ASIA/);
      assert.ok(received.signature.signedHeaders!.includes('content-type'), 'the body headers are signed');
      assert.equal(received.headers['x-gw-api-key'], undefined);
      assert.equal(await sdkAuthorization(received, aws.keys.get(received.signature.accessKeyId!)!), received.headers.authorization, 'the AWS SDK signer computes the same signature');

      await app.services.requestLogs.flush();
      const entry = proxyLogs().at(-1)!;
      assert.equal(entry.status, 200);
      assert.equal(entry.provider, 'bedrock');
      assert.deepEqual(entry.request_body, { method: 'POST', path: `/model/${encodeURIComponent(MODEL)}/invoke`, content_type: 'application/json', bytes: received.raw.length });
    });

    it('bedrock InvokeModelWithResponseStream: the binary event stream comes back as sent, chunk by chunk', async () => {
      const slug = await savedProvider('bedrock pass keys', {
        ai_provider_id: 'bedrock',
        configurations: { aws_region: 'eu-west-1', aws_access_key_id: STATIC_KEYS.id, aws_secret_access_key: STATIC_KEYS.secret, custom_host: bedrock.url },
      });
      const answer = await bedrockClient(slug).send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, contentType: 'application/json', body: JSON.stringify({ max_tokens: 5, messages: [] }) }));
      const texts: string[] = [];
      for await (const event of answer.body!) texts.push(Buffer.from(event.chunk!.bytes!).toString('utf8'));
      assert.deepEqual(texts, STREAM_TEXTS);
      const received = bedrock.received.at(-1)!;
      assert.equal(received.signature.valid, true, received.signature.reason);
      assert.equal(received.operation, 'invoke-with-response-stream');
      assert.equal(received.signature.accessKeyId, STATIC_KEYS.id);
      assert.equal(await sdkAuthorization(received, STATIC_KEYS.secret), received.headers.authorization);
    });

    it('bedrock with keys in headers: the session token is signed in; a query string is signed; forwarded headers ride outside the signature', async () => {
      const response = await app.http
        .post('/v1/model/amazon.titan-embed-text-v2:0/invoke?trace=ENABLED&x=1&x=2')
        .set({
          ...admin(),
          'x-gw-provider': 'bedrock',
          'x-gw-custom-host': bedrock.url,
          authorization: `Bearer ${STATIC_KEYS.id}`,
          'x-gw-cloud3-secret-access-key': STATIC_KEYS.secret,
          'x-gw-cloud3-session-token': STATIC_KEYS.session,
          'x-gw-cloud3-region': 'ap-south-1',
          'x-gw-forward-headers': 'x-trace-me',
          'x-trace-me': 'yes',
        })
        .send({ inputText: 'hello' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers['x-gw-provider'], 'bedrock');
      const received = bedrock.received.at(-1)!;
      assert.equal(received.signature.valid, true, received.signature.reason);
      assert.equal(received.rawUrl, '/model/amazon.titan-embed-text-v2:0/invoke?trace=ENABLED&x=1&x=2');
      assert.equal(received.signature.region, 'ap-south-1');
      assert.equal(received.headers['x-amz-security-token'], STATIC_KEYS.session);
      assert.ok(received.signature.signedHeaders!.includes('x-amz-security-token'));
      assert.equal(received.headers['x-trace-me'], 'yes');
      assert.equal(await sdkAuthorization(received, STATIC_KEYS.secret), received.headers.authorization);
    });

    it('bedrock refuses a body over the limit with 413 before anything is sent, and logs it', async () => {
      const calls = bedrock.received.length;
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${app.url}/v1/model/${MODEL}/invoke`, {
          method: 'POST',
          headers: {
            ...admin(),
            'x-gw-provider': 'bedrock',
            'x-gw-custom-host': bedrock.url,
            authorization: `Bearer ${STATIC_KEYS.id}`,
            'x-gw-cloud3-secret-access-key': STATIC_KEYS.secret,
            'content-type': 'application/json',
            'content-length': String(32 * 1024 * 1024 + 1),
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        // The declared length alone decides: the body is never sent.
        req.flushHeaders();
      });
      assert.equal(answer.status, 413, answer.body);
      const error = (JSON.parse(answer.body) as { error: { code: string; type: string; message: string } }).error;
      assert.equal(error.code, 'payload_too_large');
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(bedrock.received.length, calls, 'nothing reached bedrock');
      await app.services.requestLogs.flush();
      const entry = proxyLogs().at(-1)!;
      assert.equal(entry.status, 413);
      assert.equal(entry.error?.code, 'payload_too_large');
    });

    it('vertex-ai with workload identity federation: the minted token, the path placed in the project and location', async () => {
      const slug = await savedProvider('vertex pass wif', {
        ai_provider_id: 'vertex-ai',
        auth_type: 'wif',
        configurations: { vertex_project_id: 'proj', vertex_region: 'us-central1', custom_host: aiplatform.url },
      });
      const counted = await app.http
        .post('/v1/publishers/google/models/gemini-2.5-flash:countTokens')
        .set({ ...admin(), 'x-gw-provider': `@${slug}` })
        .send({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
      assert.equal(counted.status, 200, counted.text);
      assert.deepEqual(counted.body, { totalTokens: 4, totalBillableCharacters: 10 });
      const sent = aiplatform.received.at(-1)!;
      assert.equal(sent.path, '/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens');
      assert.equal(sent.headers.authorization, `Bearer ${tokens.issued.googleSa.at(-1)}`);
      assert.deepEqual(sent.body, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
      assert.equal(sent.headers['content-type'], 'application/json');
    });

    it('vertex-ai with the caller token: a /projects/ path goes as it is; errors come back as sent', async () => {
      const headers = { ...admin(), 'x-gw-provider': 'vertex-ai', 'x-gw-custom-host': aiplatform.url, authorization: 'Bearer ya29.caller-token', 'x-gw-cloud2-project-id': 'proj', 'x-gw-cloud2-region': 'europe-west4' };
      const listed = await app.http.get('/v1/projects/other/locations/us-east5/batchPredictionJobs?pageSize=2').set(headers);
      assert.equal(listed.status, 404);
      assert.equal(listed.body.error.status, 'NOT_FOUND');
      let sent = aiplatform.received.at(-1)!;
      assert.equal(sent.path, '/v1/projects/other/locations/us-east5/batchPredictionJobs?pageSize=2');
      assert.equal(sent.headers.authorization, 'Bearer ya29.caller-token');

      await app.http.post('/v1/endpoints/123:predict').set(headers).send({ instances: [] });
      sent = aiplatform.received.at(-1)!;
      assert.equal(sent.path, '/v1/projects/proj/locations/europe-west4/endpoints/123:predict');
    });
  });
}
