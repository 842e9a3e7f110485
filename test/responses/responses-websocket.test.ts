/**
 * The WebSocket mode of /v1/responses, driven by the official openai SDK's WebSocket client
 * (ResponsesWS) as the Open Responses compliance suite drives a server: sequential responses on
 * one socket, continuation with previous_response_id (stored and not), store: false after a
 * reconnect, a missing previous response, a failed continuation evicting the socket's memory, a
 * compacted item list starting a new chain, and the key checked at the upgrade. Every event is
 * validated against the specification's schemas; each response is one request log row.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { WebSocket } from 'ws';
import type { RequestLogEntry } from '../../core/request-log.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import type { RecordedRequest, RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openResponsesEventErrors, openResponsesWebSocketErrorErrors } from './open-responses-schema.js';

type Json = Record<string, unknown>;
type Event = Json & { type: string; sequence_number?: number; response?: Json & { id: string; output: Json[] } };

interface Upstream {
  name: string;
  apiKey: string;
  model: string;
  start(): Promise<{ close(): Promise<void>; headers: Record<string, string>; lastPrompt(): string }>;
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'an OpenAI-type provider',
    apiKey: 'sk-upstream',
    model: 'gpt-4o',
    async start() {
      const fake: FakeOpenAi = await startFakeOpenAi();
      return { close: () => fake.close(), headers: { 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url }, lastPrompt: () => JSON.stringify(fake.requests.at(-1)?.body.messages) };
    },
  },
  {
    name: 'an Anthropic-type provider',
    apiKey: 'sk-ant-upstream',
    model: 'claude-sonnet-4-5',
    async start() {
      const fake: RecordingServer = await startFakeAnthropic((_request: RecordedRequest) => ({
        kind: 'message',
        message: { content: [{ type: 'text', text: 'Hello there, friend.' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 5 } },
      }));
      return { close: () => fake.close(), headers: { 'x-gw-provider': 'anthropic', 'x-gw-custom-host': fake.url }, lastPrompt: () => JSON.stringify(fake.received.at(-1)?.body) };
    },
  },
];

/** An SDK socket and the events it received, read one response at a time. */
class Socket {
  private readonly events: Event[] = [];
  private waiting: (() => void) | undefined;

  constructor(readonly ws: ResponsesWS) {
    this.closed = new Promise<number>((resolve) => ws.on('close', (code: number) => resolve(code)));
    ws.on('event', (event) => {
      this.events.push(event as unknown as Event);
      this.waiting?.();
    });
    // The SDK raises `error` events as errors too; they are read from `event` above.
    ws.on('error', () => undefined);
  }

  /** Sends a response.create and returns its events, up to the one that ends it. */
  async create(request: Json): Promise<Event[]> {
    this.ws.send({ type: 'response.create', ...request } as never);
    return this.next();
  }

  /** The events of the next response (or error), up to the one that ends it. */
  async next(): Promise<Event[]> {
    const events: Event[] = [];
    for (;;) {
      while (this.events.length === 0) {
        const closed = await Promise.race([new Promise<void>((resolve) => (this.waiting = resolve)).then(() => false), this.closed.then(() => true)]);
        if (closed && this.events.length === 0) throw new Error(`the socket closed after ${JSON.stringify(events.map((event) => event.type))}`);
      }
      const event = this.events.shift()!;
      events.push(event);
      if (event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'error') return events;
    }
  }

  /** The close code, once the server closed the socket. */
  readonly closed: Promise<number>;

  close(): void {
    this.ws.close({ code: 1000, reason: 'done' });
  }
}

/** Every event valid (response events against their schema, a socket error against WebSocketErrorEvent), sequence numbers in order. */
function assertValid(events: Event[]): void {
  let sequence = 0;
  for (const event of events) {
    if (event.type === 'error' && event.sequence_number === undefined) {
      assert.equal(openResponsesWebSocketErrorErrors(event), '', JSON.stringify(event));
      continue;
    }
    assert.equal(openResponsesEventErrors(event), '', `${event.type}: ${JSON.stringify(event).slice(0, 400)}`);
    assert.equal(event.sequence_number, sequence++);
  }
}

function completed(events: Event[]): NonNullable<Event['response']> {
  assertValid(events);
  const last = events.at(-1)!;
  assert.equal(last.type, 'response.completed', JSON.stringify(last));
  return last.response!;
}

function socketError(events: Event[]): { status: number; error: { code: string; param: string | null } } {
  assertValid(events);
  const last = events.at(-1)! as unknown as { type: string; status: number; error: { code: string; param: string | null } };
  assert.equal(last.type, 'error');
  return last;
}

for (const engine of fullEngines())
  for (const upstream of UPSTREAMS)
    describe(`Responses over a WebSocket, ${upstream.name} (${engine.name})`, () => {
      let app: TestApp;
      let fake: Awaited<ReturnType<Upstream['start']>>;
      const logs: RequestLogEntry[] = [];
      const sockets: Socket[] = [];

      /** A socket with these headers, the upstream chosen by `selection` (the fake's provider headers by default). */
      const connect = async (headers: Record<string, string> = { 'x-gw-api-key': ADMIN_KEY }, selection = fake.headers): Promise<Socket> => {
        const client = new OpenAI({ apiKey: upstream.apiKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
        const ws = new ResponsesWS(client, { headers: { ...selection, ...headers } });
        // Messages sent while it connects are queued by the SDK.
        const socket = new Socket(ws);
        sockets.push(socket);
        return socket;
      };
      const logsFor = async (count: number) => {
        for (let i = 0; i < 200 && logs.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return logs;
      };

      before(async () => {
        fake = await upstream.start();
        app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
        recordLogsInto(app, logs);
      });
      after(async () => {
        for (const socket of sockets) socket.close();
        await app?.close();
        await fake?.close();
      });

      it('answers two responses in turn on one socket, each logged as an HTTP call would be', async () => {
        const socket = await connect();
        const before = logs.length;
        const first = completed(await socket.create({ model: upstream.model, input: 'Say hello.' }));
        const second = completed(await socket.create({ model: upstream.model, input: 'Say it again.' }));
        assert.notEqual(first.id, second.id);
        assert.equal((first.output[0] as { type: string }).type, 'message');
        const rows = (await logsFor(before + 2)).slice(before);
        assert.equal(rows.length, 2);
        for (const row of rows) {
          assert.equal(row.endpoint, 'responses');
          assert.equal(row.status, 200);
          assert.ok(row.total_tokens > 0, 'tokens are counted');
        }
      });

      for (const store of [true, false])
        it(`continues a response with previous_response_id (store: ${store})`, async () => {
          const socket = await connect();
          const first = completed(await socket.create({ model: upstream.model, input: 'My name is Ada.', store }));
          const second = completed(await socket.create({ model: upstream.model, input: 'What is my name?', store, previous_response_id: first.id }));
          assert.equal(second.previous_response_id, first.id);
          assert.match(fake.lastPrompt(), /My name is Ada/, 'the earlier turn reached the upstream');
        });

      it('does not find a store: false response after a reconnect', async () => {
        const first = completed(await (await connect()).create({ model: upstream.model, input: 'Remember this.', store: false }));
        const error = socketError(await (await connect()).create({ model: upstream.model, input: 'And now?', previous_response_id: first.id }));
        assert.equal(error.status, 400);
        assert.equal(error.error.code, 'previous_response_not_found');
        assert.equal(error.error.param, 'previous_response_id');
      });

      it('answers a missing previous response with an error event, and the socket keeps serving', async () => {
        const socket = await connect();
        const error = socketError(await socket.create({ model: upstream.model, input: 'hi', previous_response_id: 'resp_missing' }));
        assert.equal(error.error.code, 'previous_response_not_found');
        completed(await socket.create({ model: upstream.model, input: 'hi' }));
      });

      it('forgets the response a failed continuation continued', async () => {
        const socket = await connect();
        const first = completed(await socket.create({ model: upstream.model, input: 'Keep this.', store: false }));
        // A refused continuation (a body the spec refuses) fails it.
        const refused = socketError(await socket.create({ model: upstream.model, input: 'next', store: false, previous_response_id: first.id, temperature: 'hot' }));
        assert.equal(refused.status, 400);
        const again = socketError(await socket.create({ model: upstream.model, input: 'next', store: false, previous_response_id: first.id }));
        assert.equal(again.error.code, 'previous_response_not_found');
      });

      it('starts a new chain from a compacted item list', async () => {
        const socket = await connect();
        const first = completed(await socket.create({ model: upstream.model, input: 'Long talk.' }));
        const compacted = await fetch(`${app.url}/v1/responses/compact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY, authorization: `Bearer ${upstream.apiKey}`, ...fake.headers },
          body: JSON.stringify({ model: upstream.model, previous_response_id: first.id }),
        });
        assert.equal(compacted.status, 200);
        const { output } = (await compacted.json()) as { output: Json[] };
        const next = completed(await socket.create({ model: upstream.model, input: [...output, { type: 'message', role: 'user', content: 'Go on.' }] }));
        assert.equal(next.previous_response_id, null);
      });

      it('refuses messages that are not response.create, or carry stream', async () => {
        const socket = await connect();
        assert.equal(socketError(await socket.create({ model: upstream.model, input: 'hi', stream: true })).error.param, 'stream');
        assert.equal(socketError(await socket.create({ type: 'response.cancel' })).error.code, 'unsupported_message_type');
      });

      it('applies guardrails per response: a denied one is an error event and a log row, the next one runs', async () => {
        const target = { provider: fake.headers['x-gw-provider'], api_key: upstream.apiKey, custom_host: fake.headers['x-gw-custom-host'] };
        const config = JSON.stringify({ ...target, input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } }] });
        const socket = await connect({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': config }, {});
        const before = logs.length;
        const denied = socketError(await socket.create({ model: upstream.model, input: 'a forbidden word' })) as ReturnType<typeof socketError> & { hook_results?: { before_request_hooks: Array<{ verdict: boolean }> } };
        assert.equal(denied.status, 446);
        assert.equal(denied.hook_results?.before_request_hooks[0]!.verdict, false);
        completed(await socket.create({ model: upstream.model, input: 'a fine word' }));
        const rows = (await logsFor(before + 2)).slice(before);
        assert.deepEqual(rows.map((row) => row.status).sort(), [200, 446]);
      });

      it('refuses the upgrade without a gw key (401 before upgrading)', async () => {
        const ws = new WebSocket(`${app.url.replace('http', 'ws')}/v1/responses`, { headers: fake.headers });
        const status = await new Promise<number>((resolve) => {
          ws.on('error', () => undefined);
          ws.on('unexpected-response', (request, res) => {
            resolve(res.statusCode ?? 0);
            request.destroy();
          });
        });
        assert.equal(status, 401);
      });
    });

/** A loopback hop in front of the fake upstream that holds each request until released. */
async function startGate(target: string): Promise<{ url: string; arrived: Promise<void>; release(): void; close(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      arrived();
      void released.then(async () => {
        const answer = await fetch(`${target}${req.url!.replace(/^\/v1/, '')}`, { method: req.method, headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' }, body: Buffer.concat(parts) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    arrived: arrival,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Responses WebSocket bounds and shutdown', () => {
  let app: TestApp;
  let fake: FakeOpenAi;
  const connect = (headers: Record<string, string>) =>
    new Socket(new ResponsesWS(new OpenAI({ apiKey: 'sk-upstream', baseURL: `${app.url}/v1`, maxRetries: 0 }), { headers: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', ...headers } }));

  before(async () => {
    fake = await startFakeOpenAi();
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_RESPONSES_WS_IDLE_MS: '1000', GW_RESPONSES_WS_MAX_MESSAGE_BYTES: '1024' } });
  });
  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it('serves an HTTP request offering another upgrade (h2c) as plain HTTP', async () => {
    const { request } = await import('node:http');
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = request(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA', 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-upstream' },
      });
      sent.on('response', (res) => {
        let body = '';
        res.on('data', (part: Buffer) => (body += part.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      sent.on('error', reject);
      sent.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }));
    });
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { object: string }).object, 'chat.completion');
  });

  it('closes a socket left idle (1000)', async () => {
    const socket = connect({ 'x-gw-custom-host': fake.url });
    completed(await socket.create({ model: 'gpt-4o', input: 'hi' }));
    assert.equal(await socket.closed, 1000);
  });

  it('closes a socket sent a message over the size limit (1009)', async () => {
    const socket = connect({ 'x-gw-custom-host': fake.url });
    socket.ws.send({ type: 'response.create', model: 'gpt-4o', input: 'x'.repeat(2048) } as never);
    assert.equal(await socket.closed, 1009);
  });

  it('at shutdown finishes the running response, refuses new sockets, then closes (1001)', async () => {
    const gate = await startGate(fake.url);
    try {
      const socket = connect({ 'x-gw-custom-host': gate.url });
      const running = socket.create({ model: 'gpt-4o', input: 'hi' });
      await gate.arrived;
      const draining = app.sockets.drain(60_000);
      // No new socket while draining: refused at the upgrade.
      const late = new WebSocket(`${app.url.replace('http', 'ws')}/v1/responses`, { headers: { 'x-gw-api-key': ADMIN_KEY } });
      late.on('error', () => undefined);
      const lateStatus = await new Promise<number>((resolve) => late.on('unexpected-response', (request, res) => (resolve(res.statusCode ?? 0), request.destroy())));
      assert.equal(lateStatus, 503);
      gate.release();
      completed(await running);
      assert.equal(await socket.closed, 1001);
      await draining;
    } finally {
      await gate.close();
    }
  });
});
