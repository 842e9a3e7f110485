/**
 * The adapter contract suite. Every adapter runs the same checks over golden fixtures in
 * test/fixtures/providers/<adapter name>/*.json; contract.test.ts runs it for every folder there.
 *
 * Fixture format (one JSON file per case):
 * {
 *   "description": "what the case shows",
 *   "operation": "chat",                               // optional: chat (default), embeddings, or completions (a native legacy call)
 *   "target": { ProviderTarget: "provider", "apiKey", "azure", "vertex", "bedrock", "customHost", ... },
 *   "request": { the OpenAI-shaped request of the operation },
 *   "stream": false,                                   // optional, default false
 *   "expectedUpstream": {                              // what buildChatRequest must produce
 *     "method": "POST", "url": "https://...",
 *     "headers": { "name": "value" },                  // these must match exactly (lower-case names); others may exist
 *     "absentHeaders": ["x-gw-api-key"],               // optional: must not be sent
 *     "body": { ... }                                  // the upstream JSON body, compared deeply
 *   },
 *   // or, for a request the adapter must refuse before any call:
 *   "expectedRequestError": { "status": 400, "param": "max_tokens" },
 *   "upstreamStatus": 200,                             // optional, default 200
 *   "upstreamBody": { ... },                           // a JSON answer, or
 *   "upstreamStream": "data: {...}\n\ndata: [DONE]\n\n", // a text stream, or
 *   "upstreamStreamBase64": "...",                     // a binary stream (AWS event-stream)
 *   "upstreamContentType": "text/event-stream",        // optional
 *   "expectedResponse": { ... },                       // parseChatResponse's answer, compared deeply
 *   "expectedChunks": [ ... ],                         // the stream translator's chunks, compared deeply
 *   "expectedUsage": { ... },                          // optional: translator.usage() after end()
 *   "expectedStreamError": { "status": 502 },          // optional: end() (or push) must throw this
 *   "expectedError": { "status": 429, "message": "..." } // for a non-2xx upstream: parseError's message
 * }
 *
 * Each case checks the built request, then serves the upstream answer from a fake upstream on
 * 127.0.0.1 (reached through the transport's origin override, or the target's custom host) and
 * translates the bytes as they arrive; streams are also replayed one byte at a time, so an event
 * split across network reads must translate the same.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it, before, after } from 'node:test';
import { ApiError } from '../../core/errors.js';
import type {
  ChatCompletionChunk,
  ChatContext,
  ChatRequest,
  CompletionRequest,
  EmbeddingRequest,
  ProviderAdapter,
  ProviderTarget,
  StreamTranslator,
  UpstreamRequest,
} from '../../gateway/providers/types.js';
import { UpstreamClient } from '../../gateway/transport/upstream-client.js';

export interface ProviderFixture {
  description: string;
  operation?: 'chat' | 'embeddings' | 'completions';
  target: ProviderTarget;
  request: ChatRequest;
  stream?: boolean;
  expectedUpstream?: { method: string; url: string; headers?: Record<string, string>; absentHeaders?: string[]; body?: unknown };
  expectedRequestError?: { status: number; param?: string };
  upstreamStatus?: number;
  upstreamBody?: unknown;
  upstreamStream?: string;
  upstreamStreamBase64?: string;
  upstreamContentType?: string;
  expectedResponse?: unknown;
  expectedChunks?: unknown[];
  expectedUsage?: unknown;
  expectedStreamError?: { status: number };
  expectedError?: { status: number; message: string };
}

export const FIXTURE_CREATED = 1_700_000_000;
export const FIXTURE_ID = 'chatcmpl-fixture';

export function fixturesDir(): string {
  return path.join(import.meta.dirname, '..', 'fixtures', 'providers');
}

export function loadFixtures(adapterName: string): Array<{ name: string; fixture: ProviderFixture }> {
  const dir = path.join(fixturesDir(), adapterName);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ name: file.replace(/\.json$/, ''), fixture: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ProviderFixture }));
}

function contextOf(fixture: ProviderFixture): ChatContext {
  return { target: fixture.target, request: fixture.request, stream: fixture.stream === true, created: FIXTURE_CREATED, id: FIXTURE_ID };
}

/** The adapter methods a fixture's operation exercises. */
interface OperationUnderTest {
  build(context: ChatContext): Promise<UpstreamRequest> | UpstreamRequest;
  parse(body: unknown, context: ChatContext): unknown;
  translator(context: ChatContext): StreamTranslator;
}

function missing(adapter: ProviderAdapter, method: string): never {
  throw new Error(`${adapter.name} has fixtures for an operation it lacks (${method})`);
}

function operationOf(adapter: ProviderAdapter, fixture: ProviderFixture): OperationUnderTest {
  if (fixture.operation === 'embeddings') {
    const embedding = (context: ChatContext) => ({ target: context.target, request: context.request as unknown as EmbeddingRequest });
    return {
      build: (context) => (adapter.buildEmbeddingRequest ?? missing(adapter, 'buildEmbeddingRequest')).call(adapter, embedding(context)),
      parse: (body, context) => (adapter.parseEmbeddingResponse ?? missing(adapter, 'parseEmbeddingResponse')).call(adapter, body, embedding(context)),
      translator: () => missing(adapter, 'embedding streams'),
    };
  }
  if (fixture.operation === 'completions') {
    const legacy = (context: ChatContext) => ({ ...context, request: context.request as unknown as CompletionRequest });
    return {
      build: (context) => (adapter.buildTextCompletionRequest ?? missing(adapter, 'buildTextCompletionRequest')).call(adapter, legacy(context)),
      parse: (body, context) => (adapter.parseTextCompletionResponse ?? missing(adapter, 'parseTextCompletionResponse')).call(adapter, body, legacy(context)),
      translator: (context) => (adapter.createTextCompletionStreamTranslator ?? missing(adapter, 'createTextCompletionStreamTranslator')).call(adapter, legacy(context)),
    };
  }
  return {
    build: (context) => adapter.buildChatRequest(context),
    parse: (body, context) => adapter.parseChatResponse(body, context),
    translator: (context) => adapter.createStreamTranslator(context),
  };
}

function upstreamBytes(fixture: ProviderFixture): Buffer {
  if (fixture.upstreamStreamBase64 !== undefined) return Buffer.from(fixture.upstreamStreamBase64, 'base64');
  if (fixture.upstreamStream !== undefined) return Buffer.from(fixture.upstreamStream, 'utf8');
  return Buffer.from(JSON.stringify(fixture.upstreamBody ?? {}), 'utf8');
}

/** Translates a stream fed in the given pieces; returns the chunks or the error end() threw. */
function translate(translator: StreamTranslator, pieces: Uint8Array[]): { chunks: ChatCompletionChunk[]; error?: unknown } {
  const chunks: ChatCompletionChunk[] = [];
  try {
    for (const piece of pieces) chunks.push(...translator.push(piece));
    chunks.push(...translator.end());
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

/** Serves whatever the current case sets, on 127.0.0.1. */
class FixtureUpstream {
  private server: Server | undefined;
  current: ProviderFixture | undefined;
  origin = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const fixture = this.current!;
        const streamed = fixture.upstreamStream !== undefined || fixture.upstreamStreamBase64 !== undefined;
        res.writeHead(fixture.upstreamStatus ?? 200, { 'content-type': fixture.upstreamContentType ?? (streamed ? 'text/event-stream' : 'application/json') });
        const bytes = upstreamBytes(fixture);
        // Two writes with a split in the middle, like a real network read boundary.
        const middle = Math.floor(bytes.length / 2);
        res.write(bytes.subarray(0, middle));
        setImmediate(() => res.end(bytes.subarray(middle)));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Registers one describe() block running every fixture of an adapter. */
export function runAdapterContract(adapter: ProviderAdapter): void {
  describe(`adapter contract: ${adapter.name}`, () => {
    const upstream = new FixtureUpstream();
    let client: UpstreamClient;
    before(async () => {
      await upstream.start();
      client = new UpstreamClient({ originOverrides: { [adapter.name]: upstream.origin } });
    });
    after(async () => {
      await client.close();
      await upstream.close();
    });

    for (const { name, fixture } of loadFixtures(adapter.name)) {
      it(`${name}: ${fixture.description}`, async () => {
        const context = contextOf(fixture);
        const operation = operationOf(adapter, fixture);
        if (fixture.expectedRequestError) {
          await assert.rejects(
            async () => operation.build(context),
            (error: unknown) => {
              assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
              assert.equal(error.status, fixture.expectedRequestError!.status);
              if (fixture.expectedRequestError!.param !== undefined) assert.equal(error.param, fixture.expectedRequestError!.param);
              return true;
            },
          );
          return;
        }

        const built = await operation.build(context);
        const expected = fixture.expectedUpstream;
        if (expected) {
          assert.equal(built.method, expected.method);
          assert.equal(built.url, expected.url);
          const headers = Object.fromEntries(Object.entries(built.headers).map(([k, v]) => [k.toLowerCase(), v]));
          for (const [header, value] of Object.entries(expected.headers ?? {})) assert.equal(headers[header.toLowerCase()], value, `header ${header}`);
          for (const header of expected.absentHeaders ?? []) assert.equal(headers[header.toLowerCase()], undefined, `header ${header} must not be sent`);
          if (expected.body !== undefined) assert.deepEqual(JSON.parse(built.body ?? 'null'), expected.body);
        }

        // The answer, over HTTP from the fake upstream on 127.0.0.1.
        upstream.current = fixture;
        const controller = new AbortController();
        const response = await client.send(built, { provider: adapter.name, customHost: false, guarded: false, signal: controller.signal });
        if (fixture.expectedError) {
          assert.equal(response.statusCode, fixture.expectedError.status);
          const text = await response.body.text();
          const parsed = adapter.parseError(response.statusCode, text ? JSON.parse(text) : undefined);
          assert.equal(parsed.message, fixture.expectedError.message);
          return;
        }
        assert.equal(response.statusCode, 200);
        if (!context.stream) {
          assert.deepEqual(operation.parse(await response.body.json(), context), fixture.expectedResponse);
          return;
        }
        const pieces: Uint8Array[] = [];
        for await (const piece of response.body) pieces.push(piece as Uint8Array);
        const overHttp = translate(operation.translator(context), pieces);
        const bytes = Buffer.concat(pieces);
        const byteByByte = translate(
          operation.translator(context),
          Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)),
        );
        for (const result of [overHttp, byteByByte]) {
          if (fixture.expectedChunks) assert.deepEqual(result.chunks, fixture.expectedChunks);
          if (fixture.expectedStreamError) {
            assert.ok(result.error instanceof ApiError, `expected the stream to fail, got ${String(result.error)}`);
            assert.equal(result.error.status, fixture.expectedStreamError.status);
          } else if (result.error) {
            throw result.error;
          }
        }
        if (fixture.expectedUsage) {
          const translator = operation.translator(context);
          translate(translator, pieces);
          assert.deepEqual(translator.usage(), fixture.expectedUsage);
        }
      });
    }
  });
}
